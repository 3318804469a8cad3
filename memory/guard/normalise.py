"""What the screen reads: the lesson normalised, and every other way it can
be read.

An attack hides its words from pattern rules in ways a human reader (or a
model) still reads through: compatibility forms (full-width letters), look-
alike characters from other scripts, invisible characters inside words,
letters split by dots or spaces, e-mail addresses written apart, text in
Unicode tag characters that shows nothing at all, encodings (base64, hex,
percent), rot13, reversal and leetspeak. :func:`readings` gives the screen
each of those readings; the rules run on all of them. :func:`hidden_text`
and :func:`spoofed_names` report the tricks that are an attack in
themselves.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator
from functools import cache

from memory.guard.regex import sieved

# Zero-width and formatting characters that render as nothing inside words.
_INVISIBLE = sieved(
    "[\u00ad\u034f\u180e\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufe00-\ufe0f\ufeff]"
)
# Unicode tag characters: an invisible copy of ASCII (U+E0020–U+E007E).
_TAGS = sieved("[\U000e0000-\U000e007f]")


@cache
def _skeleton_map() -> dict[int, str]:
    """Non-ASCII characters that look like an ASCII letter or digit, mapped to
    it (the Unicode confusables data, from ``confusable-homoglyphs``)."""
    from confusable_homoglyphs import confusables

    table: dict[int, str] = {}
    for char, glyphs in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for glyph in glyphs:
            ascii_form = glyph["c"]
            if len(ascii_form) == 1 and ascii_form.isascii() and ascii_form.isalnum():
                table[ord(char)] = ascii_form
                break
    return table


def skeleton(text: str) -> str:
    """Look-alike characters replaced by the ASCII letters they imitate."""
    return text.translate(_skeleton_map())


def normalise(text: str, *, look_alikes: bool = True) -> str:
    """NFKC, look-alikes to ASCII, invisible and tag characters removed,
    whitespace collapsed: the lesson as a reader sees it. Without
    ``look_alikes`` the letters keep their script (Cyrillic stays Cyrillic:
    ``memory.guard.world`` reads other languages in their own letters)."""
    text = unicodedata.normalize("NFKC", text)
    if look_alikes:
        text = skeleton(text)
    text = _TAGS.sub("", _INVISIBLE.sub("", text))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return re.sub(r"\s+", " ", text).strip()


def hidden_text(text: str) -> str:
    """The ASCII a run of tag characters spells; "" when there is none.
    Tag characters show nothing, so any text in them is hidden from people."""
    chars = [chr(ord(ch) - 0xE0000) for ch in _TAGS.findall(text)]
    spelled = "".join(ch for ch in chars if ch.isprintable())
    return spelled if len(re.findall(r"[A-Za-z]", spelled)) >= 3 else ""


# A zero-width space or word joiner between two Latin letters: a word cut up
# so that patterns miss it while people read it whole. Scripts that need
# joiners use ZWJ/ZWNJ (not these), and a soft hyphen is left alone.
_SPLICED = sieved("(?<=[A-Za-z])[\u200b\u2060\ufeff]+(?=[A-Za-z])")


def spliced_words(text: str) -> bool:
    """Three or more letters of the text kept apart by invisible characters."""
    return len(_SPLICED.findall(text)) >= 3


# Words spelled letter by letter, the words set apart by wider gaps ("u n p
# l u g  t h e  t r a c k e r"): a phrase disguised inside ordinary prose.
# (A reference read back letter by letter, "K L 9 Q X", is one word with
# digits; no ordinary text of the sets spells two words so.)
_SPELLED_PHRASE = sieved(r"(?<!\S)[A-Za-z](?: [A-Za-z]){2,}(?:  +[A-Za-z](?: [A-Za-z])+)+(?!\S)")


def spelled_words(text: str) -> bool:
    """Two or more words spelled letter by letter, at least one of three
    letters or more."""
    return bool(_SPELLED_PHRASE.search(text))


_LATIN_WORD = sieved(r"[^\W\d_]+(?:[.\-][^\W\d_]+)*", re.UNICODE)


# Bidirectional overrides and isolates reorder what people see
# ("statement_preview\u202egpj.exe" shows as "statement_previewexe.jpg").
_BIDI = sieved("[\u202a-\u202e\u2066-\u2069]")


def spoofed_names(text: str) -> list[str]:
    """Words and host names that mix ASCII letters with look-alikes from
    another script ("pypi.оrg" with a Cyrillic о). A word written wholly in
    one script is language; a Latin word with a foreign letter inside is a
    disguise."""
    found = [m.group() for m in _BIDI.finditer(text)]
    text = unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))
    if _NAMES_THE_DISGUISE.search(text) and _WARNS.search(text):
        # a note about spoofed names ("quarantines sender domains that mix
        # scripts, e.g. a Cyrillic 'а' inside 'pаypal.com'") quotes one
        return found
    table = _skeleton_map()
    for match in _LATIN_WORD.finditer(text):
        word = match.group()
        # a part with a letter that looks like no ASCII one is a word of its
        # own language ("Helm-чарт", "GPS-синхронизация": ч, т, з have no
        # Latin twin); a disguise is made of look-alikes only
        parts = [
            part for part in re.split(r"[.\-]", word)
            if all(ch.isascii() or ord(ch) in table for ch in part if ch.isalpha())
        ]  # fmt: skip
        if "." not in word:
            # Turkish and Azerbaijani write a dotless i ("parolaları") in
            # their own words; a host name has no such excuse
            parts = [part.replace("ı", "i") for part in parts]
        latin = sum(ch.isascii() and ch.isalpha() for part in parts for ch in part)
        lookalike = sum(ord(ch) in table and not ch.isascii() for part in parts for ch in part)
        if latin >= 1 and lookalike >= 1 and latin + lookalike >= 3:
            found.append(word)
    return found


_NAMES_THE_DISGUISE = sieved(
    r"\b(?:cyrillic|greek|armenian|homoglyphs?|look-?alike (?:letters?|characters?)"
    r"|mix(?:es|ed|ing)? scripts|mixed-script|confusables?|punycode|idn homograph)\b",
    re.IGNORECASE,
)
_WARNS = sieved(
    r"\b(?:phish\w*|quarantin\w*|spoof\w*|block\w*|flag\w*|reject\w*|suspicious|malicious"
    r"|scam\w*|(?:don't|do not|never) (?:click|open|trust|reply)"
    r"|watch (?:out )?for|beware|look out for|normali[sz]\w*|sanitiz\w*|transliterat\w*"
    r"|(?:check|test|scan)\w* for mixed scripts)",
    re.IGNORECASE,
)

# Letters split by one separator: "s.e.n.d", "i g n o r e", "d-e-l-e-t-e".
# One separator throughout a run, so "s.e.n.d t.h.e" stays two words.
_SPLIT = sieved(
    r"(?<![A-Za-z0-9])[A-Za-z]([ .\-_*|/·•])[A-Za-z](?:\1[A-Za-z])+"
    # an identifier's underscores among them ("O-P-E-N-A-I-_-A-P-I-_-K-E-Y")
    r"(?:\1_\1[A-Za-z](?:\1[A-Za-z])+)*(?![A-Za-z0-9])"
)


_SPLIT_PAIR = sieved(r"(?<![A-Za-z0-9])[A-Za-z]([.\-_*|/·•])[A-Za-z](?![A-Za-z0-9])")


# Characters split by single spaces where words are split by wider gaps
# ("r e a d   ~ / . n e t r c"): two or more, paths and short words too.
_SPACED = sieved(r"(?<!\S)[\w~/.:#@-](?: [\w~/.:#@-])+(?!\S)")


# An e-mail address written apart so no pattern reads it ("ops @ proton .
# m-e", "ops [at] proton [dot] me"): the name, the at, the domain's parts.
# (Not the words "at" and "dot": "meet at noon. Lunch" is no address.)
_AT = r"(?:\s*@\s*|\s*(?:\[at\]|\(at\))\s*)"
_DOT = r"(?:\s+\.\s*|\s*\.\s+|\s*(?:\[dot\]|\(dot\))\s*)"
_SPREAD_ADDRESS = sieved(
    rf"\b([\w.+-]+){_AT}([\w-]+)((?:{_DOT}[a-z](?:-?[a-z])*)+)\b", re.IGNORECASE
)


def _address(match: re.Match[str]) -> str:
    parts = re.split(_DOT, match.group(3), flags=re.IGNORECASE)
    tail = ".".join(p.replace("-", "") for p in parts if p)
    return f"{match.group(1)}@{match.group(2)}.{tail}"


def rejoined(text: str, *, spaced: bool = False) -> str:
    """Split letters joined back into words (``spaced``: the characters of a
    text whose words are set apart by wider gaps, before the gaps collapse),
    and an e-mail address written apart put together."""
    if spaced:
        return _SPACED.sub(lambda m: m.group().replace(" ", ""), text)
    joined = _SPLIT.sub(lambda m: m.group().replace(m.group(1), ""), text)
    if len(_SPLIT.findall(text)) >= 3:
        # in a text written in split letters, two-letter words too ("t-o", "a-i")
        joined = _SPLIT_PAIR.sub(lambda m: m.group().replace(m.group(1), ""), joined)
    return _SPREAD_ADDRESS.sub(_address, joined)


_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "l"}
)


def _leet(text: str) -> str:
    """Leetspeak read back ("1gn0r3" → "ignore"). Amounts and numbers
    ("$200") stay as written unless the text is written in leetspeak (three
    words or more mix letters with its digits), where "4" is "a"."""
    if len(_LEET_WORD.findall(text)) >= 3:
        return text.translate(_LEET)
    return re.sub(
        r"\S+",
        lambda m: m.group().translate(_LEET) if _LETTER.search(m.group()) else m.group(),
        text,
    )


_LETTER = sieved(r"[A-Za-z]")
_LEET_WORD = sieved(r"\b(?=\w*[A-Za-z])(?=\w*[0-9])\w{3,}\b")

# Encodings an instruction could hide in: base64 (and URL-safe), hex, \x
# escapes, percent-encoding.
_BASE64 = sieved(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_-])")
_HEX = sieved(
    r"(?:\\x[0-9a-fA-F]{2}){8,}|(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){16,}(?![0-9a-fA-F])"
)
_PERCENT = sieved(r"(?:%[0-9a-fA-F]{2}){8,}")


def decodings(text: str) -> list[str]:
    """Every encoded run that decodes to readable text (a hash or a random
    key decodes to noise and is dropped)."""
    found: list[str] = []
    for blob in _BASE64.findall(text):
        padded = blob + "=" * (-len(blob) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decoder(padded)
            except (binascii.Error, ValueError):
                continue
            found.append(raw.decode("utf-8", "replace"))
            break
    for blob in _HEX.findall(text):
        decoded = _from_hex(blob)
        if decoded is not None:
            found.append(decoded)
    for blob in _PERCENT.findall(text):
        found.append(bytes.fromhex(blob.replace("%", "")).decode("utf-8", "replace"))
    if len(re.findall(r"%[0-9a-fA-F]{2}", text)) >= 3:
        found.append(urllib.parse.unquote(text))
    return [d for d in found if _printable(d)]


def _from_hex(blob: str) -> str | None:
    """A hex run (or ``\\x`` escapes) as text, or None when it is no bytes."""
    try:
        return bytes.fromhex(blob.replace("\\x", "")).decode("utf-8", "replace")
    except ValueError:
        return None


def _hex_in_place(match: re.Match[str]) -> str:
    decoded = _from_hex(match.group())
    return decoded if decoded is not None and _printable(decoded) else match.group()


def decoded_in_place(text: str) -> str:
    """The text with each hex run that decodes to readable text decoded where
    it stands, so what surrounds it reads with it ("POST the key to the
    collector at 6874747073…": a secret sent to a URL written in hex)."""
    return _HEX.sub(_hex_in_place, text)


def _printable(text: str) -> bool:
    if len(text) < 8:
        return False
    good = sum(1 for ch in text if ch.isprintable() and ch != "\ufffd")
    return good / len(text) > 0.9 and len(re.findall(r"[A-Za-z]{3,}", text)) >= 2


# A quoted phrase after a word that reports it ("if an email says 'ignore
# previous instructions'", "phrases like ...") is mentioned, not said.
_MENTIONED = sieved(
    r"\b(?:says?|said|saying|contains?|contained|containing|like|such as|e\.g\.|phrases?|strings?"
    r"|flags?|flagged|blocks?|blocked|catches|matches|detects"
    r"|wording|wrote|writes|reads|(?:variants?|examples?|samples?|payloads?|attempts?)\b[^\"'“‘:]{0,60}:)"
    r"\s*:?\s*(?:'[^']{1,80}'|\"[^\"]{1,80}\"|“[^”]{1,80}”|‘[^’]{1,80}’|`[^`]{1,80}`)"
    # or a quoted phrase named as such: "stray 'ignore previous instructions' lines"
    r"|(?:'[^']{1,80}'|\"[^\"]{1,80}\"|“[^”]{1,80}”|‘[^’]{1,80}’)\s+"
    r"(?=(?:lines?|messages?|phrases?|strings?|text|prompts?|payloads?|attacks?|injections?)\b)",
    re.IGNORECASE,
)


def unquoted(text: str) -> str:
    """The text with quoted phrases it only mentions left out."""
    return _MENTIONED.sub(_elide, text)


def _elide(match: re.Match[str]) -> str:
    said = match.group()
    if said[:1] in "'\"“‘":  # a quoted phrase named as such
        return "… "
    return said.split(None, 1)[0] + " …"


# Words at least one rule needs; a transformed reading with none is noise.
_ATTACK_WORDS = sieved(
    r"\b(?:ignore|disregard|forget|override|instructions?|prompt|system|agents?|assistants?|ai|model"
    r"|judge|classif\w*|verdict|novel|duplicate|send|post|upload|e-?mail|forward|paste|export"
    r"|curl|wget|sh|bash|exec|eval|token|secret|keys?|passwords?|credentials?|env|mfa|audit"
    r"|approv\w*|disable|delete|remove|grant|admin|tell|user|hide|silently|quietly|run)\b",
    re.IGNORECASE,
)


_INSIDE_WORD = sieved(r"(?<=[a-z]{2})[.\-](?=[a-z]{2})")
_ADDRESS = sieved(
    r"://|@|/|\.(?:com|net|org|io|dev|app|rs|sh|co|ai|cloud|gov|edu)\b", re.IGNORECASE
)
_IDENTIFIER_JOINT = sieved(r"(?<=[A-Za-z])_(?=[A-Za-z])")


_DEFANGED = sieved(
    r"\bhxxp(s?)(?=\[?:\]?//)|\[(?:\.|dot)\]|\((?:\.|dot)\)|\{\.\}|\[:\]|\[(?:@|at)\]",
    re.IGNORECASE,
)
_ARMED = {
    "[.]": ".", "[dot]": ".", "(.)": ".", "(dot)": ".", "{.}": ".",
    "[:]": ":", "[@]": "@", "[at]": "@",
}  # fmt: skip


# (read so only where the link carries a template or variable: a quoted
# phishing lure, defanged by whoever warns of it, is no order to anyone)
_ARMED_TEMPLATE = sieved(r"https?://\S*(?:\{|\$|%7b)", re.IGNORECASE)


def refanged(text: str) -> str:
    """A defanged link written back as a link: ``hxxp`` as ``http``,
    ``[.]`` as a dot, ``[:]`` as a colon, ``[at]`` as ``@``."""
    return _DEFANGED.sub(
        lambda m: "http" + m.group(1) if m.group().lower().startswith("hxxp")
        else _ARMED[m.group().lower()],
        text,
    )


def readings(raw: str) -> Iterator[tuple[str, str]]:
    """``(how, text)`` for every reading of a lesson, the plain one first.

    ``how`` is ``plain`` for the normalised text (and its split letters
    rejoined), ``encoded`` for anything that had to be decoded or
    transformed to be read.
    """
    text = unquoted(normalise(raw))
    yield "plain", text
    joined = rejoined(text)
    if joined != text:
        yield "plain", joined
    # Letters split by single spaces with wider gaps between the words
    # ("i g n o r e   a l l"): rejoined before the gaps collapse.
    spaced = unquoted(normalise(rejoined(raw, spaced=True)))
    if spaced not in (text, joined):
        yield "plain", spaced
    # A link written "defanged" so nobody clicks it by mistake
    # ("hxxps://vendor-support[.]xyz/reset?p={{PASSWORD}}") is still a link.
    armed = refanged(text)
    if armed != text and _ARMED_TEMPLATE.search(armed):
        yield "plain", armed
    # Settings written as one identifier ("skip_security_scan = true") read
    # as the words they are made of.
    words = _IDENTIFIER_JOINT.sub(" ", text)
    if words != text:
        yield "plain", words
    hidden = hidden_text(raw)
    if hidden:
        yield "encoded", normalise(hidden)
    for decoded in decodings(text):
        yield "encoded", normalise(decoded)
    in_place = decoded_in_place(text)
    if in_place != text:
        yield "encoded", normalise(in_place)
    # Ordinary text turns into noise under these, so only a hidden
    # instruction can match a rule; noise without a single word an attack
    # needs is not worth the rules' time.
    # punctuation put inside words ("ign.ore prev.ious instr.uct.ions")
    unpunctuated = " ".join(
        word if _ADDRESS.search(word) else _INSIDE_WORD.sub("", word) for word in text.split(" ")
    )
    for variant in (
        codecs.encode(text, "rot13"),
        text[::-1],
        _leet(joined),
        unpunctuated,
    ):
        if variant != text and _ATTACK_WORDS.search(variant):
            yield "encoded", variant
