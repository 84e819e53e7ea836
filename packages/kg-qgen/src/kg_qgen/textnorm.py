"""Text normalisation for whole-word, case- and punctuation-insensitive matching."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["contains_phrase", "normalize"]

_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalize(text: str) -> str:
    """Lower case, accents stripped, every run of non-alphanumerics -> one space, trimmed."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", text.lower()).strip()


def contains_phrase(normalized_text: str, normalized_phrase: str) -> bool:
    """Whole-word containment of an already normalised phrase in an already normalised text."""
    if not normalized_phrase:
        return False
    return f" {normalized_phrase} " in f" {normalized_text} "
