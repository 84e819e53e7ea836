"""Structural requirements of the packaged knowledge base (kg_qgen/data/builtin_kb.json).

These check that every question type can be built from the KB (chains, shared objects, option
sets, aliases); how well a model knows the facts is measured separately, not asserted here.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from importlib import resources

import pytest
from kg_qgen.sources.builtin import load_builtin

SLUG = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
PID = re.compile(r"^P[1-9][0-9]*$")


@pytest.fixture(scope="module")
def kb() -> dict:
    ref = resources.files("kg_qgen") / "data" / "builtin_kb.json"
    return json.loads(ref.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def index(kb: dict) -> dict:
    by_rel: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for s, r, o in kb["triples"]:
        by_rel[r][s].add(o)
    return by_rel


def test_sizes(kb: dict) -> None:
    assert len(kb["triples"]) >= 150
    used_relations = {r for _, r, _ in kb["triples"]}
    assert len(used_relations) >= 10
    assert len(kb["entities"]) >= 100


def test_ids_declared_and_well_formed(kb: dict) -> None:
    ents, rels = kb["entities"], kb["relations"]
    for i, (s, r, o) in enumerate(kb["triples"]):
        assert s in ents, f"triples[{i}]: subject {s!r} not declared"
        assert o in ents, f"triples[{i}]: object {o!r} not declared"
        assert r in rels, f"triples[{i}]: relation {r!r} not declared"
        assert s != o, f"triples[{i}]: self loop"
    for eid, ent in ents.items():
        assert SLUG.match(eid), f"entity id {eid!r} is not a lowercase slug"
        assert isinstance(ent["label"], str) and ent["label"].strip()
        assert isinstance(ent["aliases"], list)
        assert ent["label"] not in ent["aliases"], f"{eid}: alias repeats the label"
        assert all(isinstance(a, str) and a.strip() for a in ent["aliases"])
    for rid, rel in rels.items():
        assert PID.match(rid), f"relation id {rid!r} is not a Wikidata P-id"
        assert rel["label"].strip()
    # no unused declarations, no duplicate triples
    used = {x for s, _, o in kb["triples"] for x in (s, o)}
    assert used == set(ents)
    assert {r for _, r, _ in kb["triples"]} == set(rels)
    assert len({tuple(t) for t in kb["triples"]}) == len(kb["triples"])


def test_loads_through_the_builtin_source(kb: dict) -> None:
    kg = load_builtin()
    assert len(kg) == len(kb["triples"])
    assert kg.label("united_states") == "United States"
    assert kg.relation_label("P27") == "country of citizenship"


@pytest.mark.parametrize(
    ("r1", "r2"),
    [
        ("P27", "P30"),  # person -> country -> continent
        ("P27", "P36"),  # person -> country -> capital
        ("P27", "P37"),  # person -> country -> official language
        ("P27", "P38"),  # person -> country -> currency
        ("P20", "P17"),  # person -> place of death -> country
        ("P50", "P27"),  # book -> author -> country of citizenship
        ("P50", "P106"),  # book -> author -> occupation
        ("P641", "P495"),  # athlete -> sport -> country of origin
        ("P112", "P27"),  # company -> founder -> country of citizenship
        ("P159", "P17"),  # company -> headquarters city -> country
        ("P19", "P17"),  # person -> birth city -> country
        ("P131", "P17"),  # landmark -> city -> country
        ("P495", "P30"),  # work -> country of origin -> continent
    ],
)
def test_chains_for_multi_hop_types(index: dict, r1: str, r2: str) -> None:
    chains = [
        (s, b, o)
        for s, objs in index[r1].items()
        for b in objs
        for o in index[r2].get(b, ())
        if o != s
    ]
    assert len(chains) >= 3, f"only {len(chains)} chains {r1} -> {r2}"


def test_shared_objects_for_conjunction(index: dict) -> None:
    for rel in ("P27", "P19", "P30", "P37", "P50", "P106"):
        subjects_per_object = Counter(o for objs in index[rel].values() for o in objs)
        shared = [o for o, n in subjects_per_object.items() if n >= 2]
        assert len(shared) >= 2, f"{rel}: fewer than 2 objects shared by two subjects"


def test_every_relation_has_enough_options_for_ds(index: dict) -> None:
    for rel, subjects in index.items():
        if rel in ("P31", "P279"):  # schema facts (what a place is) are never asked
            continue
        objects = {o for objs in subjects.values() for o in objs}
        assert len(objects) >= 3, f"{rel}: only {len(objects)} distinct objects"


def test_aliases_for_leibniz_questions(kb: dict, index: dict) -> None:
    ents = kb["entities"]
    assert {"USA", "America", "United States of America"} <= set(ents["united_states"]["aliases"])
    assert "soccer" in ents["association_football"]["aliases"]
    assert "Leo Messi" in ents["lionel_messi"]["aliases"]
    assert "CR7" in ents["cristiano_ronaldo"]["aliases"]
    people_with_alias = [s for s in index["P27"] if ents[s]["aliases"]]
    assert len(people_with_alias) >= 20
    with_alias = sum(1 for e in ents.values() if e["aliases"])
    assert with_alias >= len(ents) // 3


def test_aliases_are_unambiguous(kb: dict) -> None:
    """No alias names two entities, and no alias is another entity's label (judges use them)."""
    owner: dict[str, str] = {}
    labels = {e["label"].lower(): eid for eid, e in kb["entities"].items()}
    for eid, ent in kb["entities"].items():
        for alias in ent["aliases"]:
            key = alias.lower()
            assert owner.setdefault(key, eid) == eid, f"alias {alias!r}: {owner[key]} and {eid}"
            assert labels.get(key, eid) == eid, f"alias {alias!r} of {eid} is another label"
