"""Sentence-level style shared by the generators and the checks: capitalised sentences.

A sentence starts at the beginning of the text and after ``.``, ``?`` or ``!`` followed by white
space (or after a "Rule:", "Fact:" or "Question:" label), except inside entity names (``names``): "Apple Inc. is" is one sentence, and "Washington,
D.C.." is written "Washington, D.C.". The first letter of a sentence must be upper case, unless its
first word already carries a capital inside it ("iPhone", "eBay"): such names keep their spelling.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["capitalize_sentences", "uncapitalized_sentences"]

# a sentence starts at the beginning, after . ? ! and after a "Rule:"/"Fact:"/"Question:" label
_START = re.compile(
    r"(^|(?<=[.?!\uE002])\s+|(?<=\bRule:)\s+|(?<=\bFact:)\s+|(?<=\bQuestion:)\s+)"
    r"([\"'“‘(]*)(\S+)"
)
_SLOT = re.compile(r"\uE000(\d+)\uE001")


def _keeps_spelling(word: str) -> bool:
    return any(c.isupper() for c in word[1:])


def _mask(text: str, names: Iterable[str]) -> tuple[str, list[str]]:
    """``text`` with every occurrence of a name replaced by a slot (longest names first)."""
    slots: list[str] = []
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        if name in text:
            text = text.replace(name, f"\ue000{len(slots)}\ue001")
            slots.append(name)
    return text, slots


def _unmask(text: str, slots: list[str]) -> str:
    return _SLOT.sub(lambda m: slots[int(m.group(1))], text)


def _first_word(word: str, slots: list[str]) -> str:
    m = _SLOT.match(word)
    return slots[int(m.group(1))].split(" ")[0] if m else word


def capitalize_sentences(text: str, names: Iterable[str] = ()) -> str:
    """``text`` with the first letter of every sentence upper-cased (see the module docs)."""
    masked, slots = _mask(text, names)
    masked = re.sub(r"(\uE001)\.(?=\s|$)", lambda m: m.group(1) + "\ue002", masked)

    def fix(m: re.Match[str]) -> str:
        word = m.group(3)
        slot = _SLOT.match(word)
        if slot:
            name = slots[int(slot.group(1))]
            if name[:1].islower() and not _keeps_spelling(name.split(" ")[0]):
                slots.append(name[0].upper() + name[1:])
                word = f"\ue000{len(slots) - 1}\ue001" + word[slot.end() :]
        elif word[:1].islower() and not _keeps_spelling(word):
            word = word[0].upper() + word[1:]
        return f"{m.group(1)}{m.group(2)}{word}"

    out = _unmask(_START.sub(fix, masked).replace("\ue002", "."), slots)
    return re.sub(r"\.\.(?=\s|$)", ".", out)  # a name ending in "." closes the sentence itself


def uncapitalized_sentences(text: str, names: Iterable[str] = ()) -> list[str]:
    """First words of the sentences of ``text`` that start with a lower-case letter."""
    masked, slots = _mask(text, names)
    out = []
    for m in _START.finditer(masked):
        word = _first_word(m.group(3), slots)
        if word[:1].islower() and not _keeps_spelling(word):
            out.append(word)
    return out
