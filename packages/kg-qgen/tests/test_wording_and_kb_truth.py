"""Issue 21, found by reading the built-in KB's questions: relation nouns that read wrong with
"of" ("the city of the Golden Gate Bridge"), HS's "go from Rome to country" (no pronoun), and
built-in facts with more right answers than the KB listed (Einstein's citizenships)."""

from __future__ import annotations

import json
import random
import re
from importlib import resources

import kg_qgen
import pytest
from kg_qgen.generate.template import TemplateGenerator, _hs
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.match.index import GraphIndex
from kg_qgen.wording import PHRASES, phrase_for


def test_containment_names_its_object_by_a_phrase_not_the_city_of_x():
    p = phrase_for("P131", "located in the administrative territorial entity")
    assert not p.plain
    assert p.np("the Golden Gate Bridge") == "the city where the Golden Gate Bridge is located"
    assert p.possessive("Big Ben") == p.np("Big Ben")  # never "Big Ben's city"
    assert phrase_for("P27", "country of citizenship").plain
    # every frame that names the object of P131 says where, never "the city of"
    g = KnowledgeGraph()
    for eid, label in [("ggb", "Golden Gate Bridge"), ("sf", "San Francisco"), ("city", "city")]:
        g.add_entity(eid, label)
    g.add_fact("ggb", "P131", "sf")
    g.add_fact("sf", "P31", "city")
    f = next(f for f in g.facts() if f.relation == "P131")
    gen = TemplateGenerator(seed=0)
    for seed in range(40):
        gen.seed = seed
        q = gen.generate([Match("SH", [f], target=f, bridge=None, answer=f.object)], g)[0]
        assert "city of" not in q["question"] and "'s city" not in q["question"], q["question"]


def _hs_graph() -> tuple[KnowledgeGraph, GraphIndex]:
    g = KnowledgeGraph()
    for eid, label in [("rome", "Rome"), ("italy", "Italy"), ("europe", "Europe")]:
        g.add_entity(eid, label)
    g.add_entity("ada", "Ada Lovelace")
    g.add_entity("thing", "Thing X")
    for s, r, o in [
        ("rome", "P17", "italy"),
        ("italy", "P30", "europe"),
        ("italy", "P36", "rome"),
        ("ada", "P27", "italy"),
        ("ada", "P19", "rome"),
        ("thing", "P17", "italy"),  # a subject of no known class
    ]:
        g.add_fact(s, r, o)
    return g, GraphIndex.of(g)


@pytest.mark.parametrize(
    ("subject", "r1", "expected"),
    [("rome", "P17", "to its country and on"), ("ada", "P27", "from Ada Lovelace to their ")],
)
def test_hs_journey_frame_says_its_or_their(subject, r1, expected):
    g, idx = _hs_graph()
    f1 = next(f for f in g.facts() if f.subject == subject and f.relation == r1)
    f2 = next(f for f in g.facts() if f.subject == "italy" and f.relation == "P30")
    m = Match("HS", [f1, f2], target=f1, bridge=f1.object, answer=f2.object)
    seen = 0
    for seed in range(300):
        q, frame, _ = _hs(m, g, idx, random.Random(seed))
        if frame == 6:
            seen += 1
            assert expected in q, q
        assert not re.search(r" to (country|country of citizenship) and on", q), q
    assert seen >= 5


def test_hs_journey_frame_is_not_used_without_a_pronoun():
    g, idx = _hs_graph()
    assert idx.entity_class("thing") == "thing"
    f1 = next(f for f in g.facts() if f.subject == "thing")
    f2 = next(f for f in g.facts() if f.subject == "italy" and f.relation == "P30")
    m = Match("HS", [f1, f2], target=f1, bridge=f1.object, answer=f2.object)
    frames = {_hs(m, g, idx, random.Random(seed))[1] for seed in range(300)}
    assert 6 not in frames and 5 in frames


def test_seat_of_government_is_not_a_capital_noun():
    assert "seat of government" not in PHRASES["P36"].alt_nouns


def _kb() -> dict:
    ref = resources.files("kg_qgen") / "data" / "builtin_kb.json"
    return json.loads(ref.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("subject", "relation", "objects"),
    [
        ("albert_einstein", "P27", {"germany", "switzerland", "austria_hungary", "united_states"}),
        ("nikola_tesla", "P27", {"austria_hungary", "united_states"}),
        ("arnold_schwarzenegger", "P27", {"austria", "united_states"}),
        ("elon_musk", "P27", {"south_africa", "canada", "united_states"}),
        ("egypt", "P30", {"africa", "asia"}),
        ("microsoft", "P112", {"bill_gates", "paul_allen"}),
        ("google", "P112", {"larry_page", "sergey_brin"}),
        ("tango", "P495", {"argentina", "uruguay"}),
        ("australia", "P30", set()),  # "Australia" is the continent too: not expressible
    ],
)
def test_builtin_kb_lists_every_right_object(subject, relation, objects):
    got = {o for s, r, o in _kb()["triples"] if s == subject and r == relation}
    assert got == objects


def test_south_africa_lists_its_twelve_official_languages():
    assert len({o for s, r, o in _kb()["triples"] if s == "south_africa" and r == "P37"}) == 12


def test_builtin_subjects_with_several_objects_get_no_single_answer_question():
    graph = kg_qgen.load_source("builtin")
    idx = GraphIndex.of(graph)
    result = kg_qgen.build(graph, types=("SH", "LL", "HS", "MP", "DS"), per_type=1000, seed=0)
    for q in result.questions:
        t = q["target_ids"]
        assert len(idx.objects(t["subject"], t["relation"])) == 1, q["question"]
    sh = [q["question"] for q in result.questions if q["type"] == "SH"]
    assert not any("Einstein" in x and "citizen" in x for x in sh)
