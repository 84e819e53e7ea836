"""Text normalisation for whole-word, case- and punctuation-insensitive matching."""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["FUNCTION_WORDS", "contains_phrase", "long_tokens", "normalize"]

_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalize(text: str) -> str:
    """Lower case, accents stripped, every run of non-alphanumerics -> one space, trimmed."""
    return _normalize(str(text))


@functools.lru_cache(maxsize=1 << 16)
def _normalize(text: str) -> str:
    # cached: the checks normalise the same labels for every record, and the MT wording filter
    # re-checks its redrawn questions many times; ASCII text has nothing to decompose
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", text.lower()).strip()


def contains_phrase(normalized_text: str, normalized_phrase: str) -> bool:
    """Whole-word containment of an already normalised phrase in an already normalised text."""
    if not normalized_phrase:
        return False
    return f" {normalized_phrase} " in f" {normalized_text} "


# Function words of four letters or more: shared with a masked label they give nothing away.
FUNCTION_WORDS = frozenset(
    {
        "about",
        "above",
        "after",
        "again",
        "against",
        "also",
        "among",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "just",
        "more",
        "most",
        "much",
        "only",
        "other",
        "over",
        "same",
        "some",
        "such",
        "than",
        "that",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "upon",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "whose",
        "will",
        "with",
        "within",
        "without",
        "would",
        "your",
        "yours",
    }
)


def long_tokens(normalized_text: str, min_letters: int = 4) -> set[str]:
    """Tokens with at least ``min_letters`` letters that are not function words."""
    return {
        t
        for t in normalized_text.split()
        if sum(c.isalpha() for c in t) >= min_letters and t not in FUNCTION_WORDS
    }
