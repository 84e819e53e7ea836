"""Text normalisation for the deterministic alias judge.

Steps, in order: Unicode NFKD with combining marks dropped (``Zürich`` -> ``zurich``), case folding,
``n't`` expanded to `` not``, thousands separators removed (``1,000`` -> ``1000``), every
non-alphanumeric character turned into a space, the articles *a/an/the* dropped, and runs of number
words rewritten as digits (``twenty one`` -> ``21``, ``three`` -> ``3``).
"""

from __future__ import annotations

import re
import unicodedata

ARTICLES = frozenset({"a", "an", "the"})

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES)

_THOUSANDS_SEP = re.compile(r"(?<=\d),(?=\d{3}\b)")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words_to_number(words: list[str]) -> int:
    """Value of a run of number words; ``and`` inside the run is ignored by the caller."""
    total = 0
    current = 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:  # thousand / million / billion close a group
            total += max(current, 1) * _SCALES[word]
            current = 0
    return total + current


def _merge_number_words(tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] not in _NUMBER_WORDS:
            out.append(tokens[i])
            i += 1
            continue
        run: list[str] = []
        j = i
        # "one hundred and five": an "and" between number words belongs to the number.
        while j < len(tokens) and (
            tokens[j] in _NUMBER_WORDS
            or (
                tokens[j] == "and"
                and run
                and j + 1 < len(tokens)
                and tokens[j + 1] in _NUMBER_WORDS
            )
        ):
            if tokens[j] != "and":
                run.append(tokens[j])
            j += 1
        out.append(str(_words_to_number(run)))
        i = j
    return out


def tokenize(text: str, *, drop_articles: bool = True) -> list[str]:
    """Normalised word tokens of ``text`` (see module docstring for the exact steps)."""
    text = strip_accents(text).casefold()
    text = text.replace("\u2019", "'").replace("n't", " not")
    text = _THOUSANDS_SEP.sub("", text)
    tokens = _NON_ALNUM.sub(" ", text).split()
    if drop_articles:
        tokens = [t for t in tokens if t not in ARTICLES]
    return _merge_number_words(tokens)


def normalize(text: str) -> str:
    """``tokenize`` joined by single spaces."""
    return " ".join(tokenize(text))


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """True when ``needle`` occurs as a contiguous token run in ``haystack`` (whole words only)."""
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))
