"""DS position rules: can the gold be picked by where it sits, without any fact?

Three text-only rules over the DS records of a set (the record's ``options`` in display order,
its ``question`` and ``answer``), each scored against chance (the mean of 1/k over the items):

* **last survivor**: drop every option the question names again outside its option list (a
  clue that names what it rules out) and, when the item leaves more than one option after its
  own eliminations (round two's records: ``eliminated`` one label, two options left), the
  options the record says are eliminated; then pick the last option left (the last one when
  none is left). Round two's DS put the gold last about half the time, and this rule was right
  two times in three on an unseen set. An item that rules out every option but the gold is
  scored on its text alone: knowing its clue facts is the reasoning it tests, not a shortcut;
* **first option**: pick the first option listed;
* **gold slot**: the share of items whose gold sits in the most frequent slot (the best
  "always slot i" rule); the full distribution is reported.

A set passes when every rule's accuracy is at most chance + ``margin`` (10 points); a set of
fewer than ``min_n`` (100) DS items is reported and not judged. ``kg-qgen verify`` runs it as the
set check ``ds_positions`` (:mod:`kg_qgen.verify.report`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from kg_qgen.textnorm import contains_phrase, normalize

__all__ = ["MARGIN", "MIN_N", "ds_position_check", "last_survivor"]

MARGIN = 0.10
MIN_N = 100


def _cut_once(text: str, phrase: str) -> str:
    padded, needle = f" {text} ", f" {phrase} "
    i = padded.find(needle)
    return text if i < 0 else (padded[:i] + " | " + padded[i + len(needle) :]).strip()


def _eliminated(record: dict) -> set[str]:
    """Labels the record says are ruled out (round three's list or round two's one label)."""
    got = record.get("eliminated")
    if isinstance(got, str):
        return {got}
    if isinstance(got, list):
        return {str(e.get("option")) for e in got if isinstance(e, dict)}
    return set()


def last_survivor(question: str, options: Sequence[str], eliminated: set[str] = frozenset()) -> int:
    """Index of the option the "last survivor" rule picks (module docs); ``eliminated`` is used
    only when it leaves more than one option."""
    text = normalize(question)
    forms = [normalize(o) for o in options]
    for form in sorted(forms, key=len, reverse=True):  # the listing: each option once
        text = _cut_once(text, form)
    left = [i for i, form in enumerate(forms) if not contains_phrase(text, form)]
    after = [i for i in left if options[i] not in eliminated]
    if len(after) > 1:
        left = after
    return left[-1] if left else len(options) - 1


def _items(records: Sequence[dict]) -> list[tuple[str, list[str], int, set[str]]]:
    out = []
    for r in records:
        opts = r.get("options")
        if r.get("type") != "DS" or not isinstance(opts, list) or r.get("answer") not in opts:
            continue
        q, gold = str(r.get("question", "")), opts.index(r["answer"])
        out.append((q, [str(o) for o in opts], gold, _eliminated(r)))
    return out


def ds_position_check(
    records: Sequence[dict], margin: float = MARGIN, min_n: int = MIN_N
) -> dict[str, Any] | None:
    """The ``ds_positions`` set check (module docs); None when the set has no DS item."""
    items = _items(records)
    n = len(items)
    if not n:
        return None
    chance = sum(1 / len(o) for _, o, _, _ in items) / n
    slots = Counter(g for _, _, g, _ in items)
    rules = {
        "last_survivor": sum(last_survivor(q, o, e) == g for q, o, g, e in items) / n,
        "first_option": sum(g == 0 for _, _, g, _ in items) / n,
        "gold_slot": max(slots.values()) / n,
    }
    judged = n >= min_n
    bad = [k for k, acc in rules.items() if acc > chance + margin] if judged else []
    shares = {
        str(i + 1): round(slots[i] / n, 3) for i in range(max(len(o) for _, o, _, _ in items))
    }
    detail = (
        f"n={n}, chance {chance:.3f}; "
        + ", ".join(f"{k.replace('_', ' ')} {v:.3f}" for k, v in rules.items())
        + f"; gold slot shares {shares} ("
        + (f"enforced <= chance + {margin:.2f}" if judged else f"not judged: n < {min_n}")
        + ")"
    )
    if bad:
        detail += "; above chance + margin: " + ", ".join(bad)
    return {
        "ok": not bad,
        "judged": judged,
        "n": n,
        "chance": chance,
        "rules": rules,
        "slot_shares": shares,
        "detail": detail,
    }
