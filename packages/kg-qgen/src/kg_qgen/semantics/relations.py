"""What kg-qgen knows about relations: shipped labels, which ones are single-valued, schema ones.

**Labels.** ``kg_qgen/data/wikidata_relation_labels.json`` holds the English Wikidata labels of
the properties that MQuAKE (its 44 question templates), ROME/CounterFact (34 relations) and the
built-in KB use, plus the schema relations P31/P279: 52 ids, taken verbatim from a public
Wikidata SPARQL result (CC0; the file names its origin). A source's own label wins; this table
fills in Wikidata ids that come without one (a triples file with bare ``P27``). A relation whose
label is still a raw id (``P138``) has **no label**: its questions are rejects (check
``relation_label``), and ``strict=True`` makes it an error. No raw id ever reaches question text.

**Single-valued relations.** A disjunctive-syllogism elimination ("it is not the one whose capital
is Paris") needs *positive* evidence that the clause does not fit the other options: each of them
has a *different* value for a relation that has one value per subject. :data:`SINGLE_VALUED` lists
the Wikidata properties we treat so (one value per subject, or one at a time: Wikidata's
single-value or single-best-value constraint, or the property's meaning), some only for certain
subject classes (``P641`` sport is single-valued for a playing position or a team, not for a
person). A relation that is not a Wikidata id (a slug from a text source or a custom triples file)
is treated as single-valued when every subject in the graph has exactly one object for it (a
documented heuristic: the graph is the only evidence there is).

**Inverse-functional relations.** :data:`INVERSE_FUNCTIONAL` lists the Wikidata properties whose
object has one subject (capital, head of government, CEO, head coach, director / manager): only
for them is "if the r1 of s is not b, then the r2 of the r1 of s is not o2" true. A relation that
is not a Wikidata id counts when every object in the graph has exactly one subject for it.

**Multi-valued relations.** :data:`MULTI_VALUED` lists the Wikidata properties that take several
objects in the world (official language, member of, notable work, occupation, ...). A graph often
gives a subject only one of them, so "the official language of Ireland" would have more right
answers than its gold: facts of these relations are never asked (nor used as a chain's bridge,
CC's shared value or DS's target).

**Schema relations** (``P31`` instance of, ``P279`` subclass of) say what kind of thing an entity
is; they feed :mod:`kg_qgen.semantics.classes` and are never asked about.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

__all__ = [
    "INVERSE_FUNCTIONAL",
    "MULTI_VALUED",
    "RAW_ID",
    "SCHEMA_RELATIONS",
    "SINGLE_VALUED",
    "is_raw_id",
    "shipped_relation_labels",
    "single_valued_for",
]

RAW_ID = re.compile(r"^[PQ][1-9][0-9]*$")
SCHEMA_RELATIONS = frozenset({"P31", "P279"})

_ANY = None  # single-valued whatever the subject's class
# relation id -> None (any subject) or the subject classes for which it has one value
SINGLE_VALUED: dict[str, frozenset[str] | None] = {
    "P19": _ANY,  # place of birth
    "P20": _ANY,  # place of death
    "P17": _ANY,  # country (of a place / an organisation)
    "P36": _ANY,  # capital
    "P131": _ANY,  # located in the administrative territorial entity
    "P159": _ANY,  # headquarters location
    "P740": _ANY,  # location of formation
    "P6": _ANY,  # head of government (one at a time)
    "P35": _ANY,  # head of state (one at a time)
    "P169": _ANY,  # chief executive officer (one at a time)
    "P286": _ANY,  # head coach (one at a time)
    "P488": _ANY,  # chairperson (one at a time)
    "P1037": _ANY,  # director / manager (one at a time)
    "P641": frozenset({"position", "team"}),  # sport: one for a playing position or a team
}

# Relations whose object has one subject in the world (the object determines the subject): a city
# is the capital of one country, a person heads one government, is CEO of, coaches or manages one
# organisation at a time. MT's "negative" conditional ("if the country of X is not France, then
# the capital of X's country is not Paris") is true only for these (kg_qgen.match.mt).
INVERSE_FUNCTIONAL: frozenset[str] = frozenset({"P36", "P6", "P169", "P286", "P1037"})

# Relations that take several objects in the world (official language, member of, notable work,
# ...). A graph often lists one of them only, so a question whose answer is "the" value would
# have more right answers than its gold: their facts are never asked (GraphIndex.is_unique is
# false for them, CC never shares them).
MULTI_VALUED: frozenset[str] = frozenset(
    {
        "P37",  # official language
        "P463",  # member of
        "P800",  # notable work
        "P1412",  # languages spoken, written or signed
        "P106",  # occupation
        "P101",  # field of work
        "P136",  # genre
        "P40",  # child
        "P166",  # award received
        "P39",  # position held
        "P69",  # educated at
        "P108",  # employer
        "P1303",  # instrument
        "P190",  # twinned administrative body
        "P26",  # spouse (over a life)
        "P54",  # member of sports team
        "P361",  # part of
        "P527",  # has part
        "P47",  # shares border with
        "P530",  # diplomatic relation
        "P737",  # influenced by
        "P102",  # member of political party
        "P551",  # residence
        "P937",  # work location
        "P1050",  # medical condition
        "P172",  # ethnic group
        "P135",  # movement
        "P161",  # cast member
        "P1344",  # participant in
        "P3373",  # sibling
    }
)


def is_raw_id(label: str) -> bool:
    """True for a bare Wikidata id such as ``P27`` or ``Q90`` (not a readable label)."""
    return bool(RAW_ID.match(label.strip()))


@lru_cache(maxsize=1)
def shipped_relation_labels() -> dict[str, str]:
    """Wikidata property id -> English label, for the ids kg-qgen ships (see module docs)."""
    ref = resources.files("kg_qgen") / "data" / "wikidata_relation_labels.json"
    return dict(json.loads(ref.read_text(encoding="utf-8"))["labels"])


def single_valued_for(relation: str, subject_class: str) -> bool | None:
    """Whether ``relation`` has one value for a subject of ``subject_class``.

    True/False for Wikidata ids (from :data:`SINGLE_VALUED`); None for any other relation id,
    for which the caller decides from the graph (see the module docs).
    """
    if relation in SINGLE_VALUED:
        classes = SINGLE_VALUED[relation]
        return classes is None or subject_class in classes
    if RAW_ID.match(relation):
        return False
    return None
