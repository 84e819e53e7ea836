"""Text normalisation for the deterministic alias judge.

Steps, in order: Unicode NFKD with combining marks dropped (``Zürich`` -> ``zurich``), case folding,
``n't`` expanded to `` not``, thousands separators removed (``1,000`` -> ``1000``), every
non-alphanumeric character turned into a space, the articles *a/an/the* dropped, and runs of number
words rewritten as digits (``twenty one`` -> ``21``, ``three`` -> ``3``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

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


@dataclass(frozen=True)
class Token:
    """A normalised word and the character span ``[start, end)`` of the original text it came
    from (a merged number like ``twenty-one`` -> ``21`` spans all its words)."""

    text: str
    start: int
    end: int


def _merge_number_words(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        if tokens[i].text not in _NUMBER_WORDS:
            out.append(tokens[i])
            i += 1
            continue
        run: list[str] = []
        j = i
        # "one hundred and five": an "and" between number words belongs to the number.
        while j < len(tokens) and (
            tokens[j].text in _NUMBER_WORDS
            or (
                tokens[j].text == "and"
                and run
                and j + 1 < len(tokens)
                and tokens[j + 1].text in _NUMBER_WORDS
            )
        ):
            if tokens[j].text != "and":
                run.append(tokens[j].text)
            j += 1
        out.append(Token(str(_words_to_number(run)), tokens[i].start, tokens[j - 1].end))
        i = j
    return out


def _normalise_chars(text: str) -> tuple[str, list[int]]:
    """Accents stripped, case folded, ``n't`` -> `` not``, thousands separators removed; with,
    for every output character, the index of the input character it came from."""
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        # Per character, NFKD + casefold give the same string as on the whole text.
        for out in strip_accents(char).casefold().replace("\u2019", "'"):
            chars.append(out)
            origin.append(index)
    folded = "".join(chars)
    pieces: list[str] = []
    mapped: list[int] = []
    i = 0
    while i < len(folded):
        if folded.startswith("n't", i):
            pieces.append(" not")
            mapped.extend([origin[i]] * 4)
            i += 3
            continue
        if folded[i] == "," and _THOUSANDS_SEP.match(folded, i):
            i += 1
            continue
        pieces.append(folded[i])
        mapped.append(origin[i])
        i += 1
    return "".join(pieces), mapped


_WORD = re.compile(r"[0-9a-z]+")


def tokenize_spans(text: str, *, drop_articles: bool = True) -> list[Token]:
    """Like :func:`tokenize`, keeping each token's span in ``text`` (for capitalisation and the
    punctuation between words, which the judges' hedge and negation rules look at)."""
    normalised, origin = _normalise_chars(text)
    tokens = [
        Token(m.group(0), origin[m.start()], origin[m.end() - 1] + 1)
        for m in _WORD.finditer(normalised)
    ]
    if drop_articles:
        tokens = [t for t in tokens if t.text not in ARTICLES]
    return _merge_number_words(tokens)


def tokenize(text: str, *, drop_articles: bool = True) -> list[str]:
    """Normalised word tokens of ``text`` (see module docstring for the exact steps)."""
    return list(_tokenize_cached(text, drop_articles))


@lru_cache(maxsize=8192)
def _tokenize_cached(text: str, drop_articles: bool) -> tuple[str, ...]:
    # the judges tokenize the same question, answer and aliases many times: a pure function
    return tuple(token.text for token in tokenize_spans(text, drop_articles=drop_articles))


def normalize(text: str) -> str:
    """``tokenize`` joined by single spaces."""
    return " ".join(tokenize(text))


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """True when ``needle`` occurs as a contiguous token run in ``haystack`` (whole words only)."""
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))
