"""Which entity names take "the" in running text ("of the United Kingdom", "coaches the Golden
State Warriors") and a check for doubled words.

A name takes "the" when (after normalisation, a leading "the" already written aside):

* it is in the shipped list ``kg_qgen/data/definite_names.txt`` (countries such as the
  Netherlands, unions, oceans, leagues, bands known with "the", ...);
* it is "<institution word> of ..." ("Republic of Ireland", "University of Oxford", "Kingdom of
  Denmark"): the first word is in :data:`OF_HEADS`;
* it is a state's formal name: a polity word ("Republic", "Federation", "States", ...) last or
  before "of" ("French Republic", "United Mexican States", "People's Republic of China");
* it names a team or a group (class from :mod:`kg_qgen.semantics.classes`) and ends in a plural
  word ("Golden State Warriors", "Chicago Bulls"), not a club name such as "Manchester United F.C.".

Everything else (persons, cities, most countries, works, companies) is written bare.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from kg_qgen.textnorm import normalize

__all__ = ["OF_HEADS", "doubled_word", "needs_article", "with_article"]

OF_HEADS = frozenset(
    {
        "republic",
        "kingdom",
        "commonwealth",
        "federation",
        "union",
        "state",
        "states",
        "province",
        "duchy",
        "grand",
        "principality",
        "emirate",
        "sultanate",
        "university",
        "college",
        "academy",
        "institute",
        "museum",
        "bank",
        "church",
        "order",
        "isle",
        "city",
        "county",
        "district",
        "league",
        "council",
        "ministry",
        "department",
        "house",
        "battle",
        "treaty",
        "gulf",
        "bay",
        "sea",
        "lake",
        "river",
        "strait",
        "cape",
        "people",
        "peoples",
        "islamic",
        "federal",
        "democratic",
    }
)
_POLITY_WORDS = frozenset(
    {"republic", "federation", "kingdom", "states", "emirates", "union", "commonwealth"}
)
_PLURAL_CLASSES = {"team", "group"}
_NOT_PLURAL = re.compile(r"(ss|us|is|ys|'s)$")


@lru_cache(maxsize=1)
def _listed() -> frozenset[str]:
    ref = resources.files("kg_qgen") / "data" / "definite_names.txt"
    lines = ref.read_text(encoding="utf-8").splitlines()
    return frozenset(normalize(x) for x in lines if x.strip() and not x.startswith("#"))


def needs_article(label: str, entity_class: str = "thing") -> bool:
    """Whether ``label`` is written "the <label>" inside a sentence (module docs)."""
    norm = normalize(label)
    if not norm or norm.startswith("the ") or label[:1].islower():
        return False
    if norm in _listed():
        return True
    words = norm.split()
    if len(words) >= 3 and words[0] in OF_HEADS and "of" in words[1:3]:
        return True
    # a state's formal name: "the French Republic", "the Russian Federation", "the United Mexican
    # States", "the People's Republic of China" (the polity word last, or before "of")
    polity = [i for i, w in enumerate(words) if w in _POLITY_WORDS]
    if len(words) >= 2 and any(i == len(words) - 1 or words[i + 1] == "of" for i in polity):
        return True
    last = label.split()[-1]
    return (
        entity_class in _PLURAL_CLASSES
        and len(words) >= 2
        and last[:1].isupper()
        and last.endswith("s")
        and not _NOT_PLURAL.search(last)
        and "." not in last
    )


def with_article(label: str, entity_class: str = "thing") -> str:
    """``label`` with "the " in front when it takes one (:func:`needs_article`)."""
    return f"the {label}" if needs_article(label, entity_class) else label


_DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)


def doubled_word(text: str, names: tuple[str, ...] = ()) -> str | None:
    """A word written twice in a row outside entity names ("of of", "the the"), or None."""
    for name in sorted(names, key=len, reverse=True):
        if name:
            text = text.replace(name, " \ue000 ")  # a name is one opaque token
    m = _DOUBLED.search(text)
    return m.group(1) if m else None
