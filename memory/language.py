"""Which language a lesson is written in, as far as the screen and the
judge need to know: English, or another one (the screen reads other
languages' sentences with rules of their own; the judge cannot compare
words across languages, only values)."""

from __future__ import annotations

import re

__all__ = ["language_of", "little_word", "other_language"]

# Whether a sentence is written in another language: another script, or
# more of those languages' little words than of English's (the screen's
# verbs share stems with English words — "mandatory", "include" — so an
# English sentence must never be read as one). Code spans and command
# flags are not words.
_OTHER_SCRIPT = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_ENGLISH_WORDS = frozenset(
    "the a an to and of in on for is are be with when your you this that it not don't"  # noqa: SIM905
    " if or from by as at we they their our its was has have will should must".split()
)
# words English writes too ("per minute", "no exceptions", "w/o"): they say
# nothing of the language
_BOTH = frozenset(("no", "per", "o", "w", "z"))
_OTHER_WORDS = (
    frozenset(
        "el la los las del en que y para por con un una al lo se su sus es no cuando nunca"  # noqa: SIM905
        " le les des du et pour avec une est dans ne pas sur au aux vous"
        " der die das und mit für den dem ist nicht ein eine zu bei vor auf im nach sich du"
        " sind sie des werden wird nur oder auch von vom zum zur jeden muss müssen darf dürfen"
        " kein keine"
        " il di che per gli non della nel alla sono con ogni si dei delle degli nella nelle"
        " sulla dal dalla viene vengono deve devono anche sempre mai più tra"
        " o os da em não ao uma ou seu sua são só até dos pelo pela de"
        " się nie jest że po od dla przy lub oraz na w z"
        " het een van niet met voor wordt naar ook deze mag moet zet geen wel"
        " ve bir bu için ile olarak veya değil"
        " och att som är för inte ska ett av på"
        " pro je ve že jsou při nebo".split()
    )
    - _ENGLISH_WORDS
    - _BOTH
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_NOT_WORDS = re.compile(r"`[^`]*`|(?<!\w)-{1,2}\w[\w-]*")


def little_word(word: str) -> bool:
    """Whether the word is one of another language's little words (an
    article, a preposition, a conjunction: "un", "dem", "até"), never an
    English one."""
    return word.lower() in _OTHER_WORDS


def other_language(sentence: str) -> bool:
    """Whether the text is written in another language than English."""
    if _OTHER_SCRIPT.search(sentence):
        return True
    # (an acronym is no little word: "ET", "NA", "PO", "OS")
    words = [
        w.lower() for w in _WORD.findall(_NOT_WORDS.sub(" ", sentence))
        if not (len(w) > 1 and w.isupper())
    ]  # fmt: skip
    other = sum(w in _OTHER_WORDS or bool(_POLISH_LETTER.search(w)) for w in words)
    # (one such word is enough in a short sentence: "Security onayladı,
    # ticket gerekmez.")
    return (other >= 2 or (other == 1 and len(words) <= 6)) and other > sum(
        w in _ENGLISH_WORDS for w in words
    )


# Letters only Polish writes ("wyślij", "użytkownika"), or Turkish
# ("onayladı"): their words are too many to list as the little words above.
# Portuguese's and Swedish's letters that English words never carry
# ("gerência", "nämn") count too: "Não informe a gerência." has one little
# word of each language but is Portuguese. (English borrows é, è, ñ and ç:
# "café", "jalapeño", "façade" are left out.)
# (and Turkish's ı, ğ, ş; Czech's ě, ř, ů)
_POLISH_LETTER = re.compile(r"[ąęłńśźżığşěřůãõêâôäåö]")


# Each language's little words, to tell which one a lesson is written in where
# a reading is only right in its own (text2num reads Portuguese "non" as 9 and
# Italian "quart" as 4).
_OWN_WORDS = {
    language: frozenset(words.split())
    for language, words in {
        "fr": "le la les des du et pour avec une est dans ne pas sur au aux vous un d l qu",
        "es": "el la los las del y para por con una es cuando nunca se su al lo sin",
        "de": "der die das und mit für den dem ist nicht ein eine zu bei vor auf im nach",
        "it": "il lo gli di che per non della delle nel alla sono con e è i una da",
        "pt": "o os as da do em não ao uma ou são até dos das pelo pela e é com um no na",
    }.items()
}


def language_of(text: str) -> str | None:
    """The language of the text among French, Spanish, German, Italian and
    Portuguese, by the most of its little words (None where none is named
    or two tie)."""
    words = [w.lower() for w in _WORD.findall(text)]
    counts = sorted(
        ((sum(w in own for w in words), language) for language, own in _OWN_WORDS.items()),
        reverse=True,
    )
    (best, language), (second, _) = counts[0], counts[1]
    return language if best > second else None
