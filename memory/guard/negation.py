"""The words that forbid what follows them, in the other languages the
screen reads: one list for every reading that asks whether an order is
forbidden — the rules' commands ("не запускайте … curl | sh",
``memory.guard.rules``), ``memory.guard.world``'s clauses ("no compartas
…", "不要 …") and its hailed readings. English is each reading's own: the
rules read narrower English shapes ("never run", "don't use") than a
clause's "not" or "never". Japanese and Korean forbid after the verb
("実行しないでください", "쓰지 않는다"): ``AFTER_THE_VERB`` is their one list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.guard.normalise import normalise

# es/it/pt "no", fr "ne … pas" and "n'", de, pl, ru; Portuguese with and
# without its tilde
OTHER_NEGATORS = (
    "no", "non", "nunca", "jamás", "jamais", "nada", "nem", "não", "nao", "mai", "ne", "n'",
    "nie", "niemals", "nicht", "не", "никогда", "нельзя", "запрещено",
)  # fmt: skip
# words by their stem: "keine", "keinen"; "ningún", "ninguna"
_STEMS = (r"kein\w*", r"ning[uú]n\w*")
# Chinese, which no word boundary bounds; 别 ("don't") not as the second
# character of a word (特别 "especially", 分别, 区别, 识别, 级别, 类别)
CHINESE_NEGATORS = r"不要|不得|禁止|切勿|请勿|严禁|不能|不可|(?<![特分区识级类])别"


# what forbids the verb it follows: Japanese and Korean endings
AFTER_THE_VERB = (
    r"(?:してはいけない|しないで|ないで|しない|ない|ません|禁止"
    r"|지 않는다|지 않습니다|지 마세요|지 말 것|지 말아야|금지)"
)


def negators(english: Sequence[str] = (), *, look_alikes: bool) -> str:
    """A regular expression for a negator: ``english`` words and the other
    languages' (Chinese too), spelt as the text it reads is (``look_alikes``:
    read with look-alike letters mapped, as the rules read, "не" is "нe")."""
    words = [normalise(w, look_alikes=look_alikes) for w in (*english, *OTHER_NEGATORS)]
    spelt = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    return rf"\b(?:{spelt}|{'|'.join(_STEMS)})(?:\b|(?<=')\B)|{CHINESE_NEGATORS}"
