"""Issue 34 item 2: DS items with one option left, each other option ruled out by another fact.

Small graphs built here pin each rule down (the class rule, each clue fitting its option alone,
the name-hint drop, the slot and clue-order draws); the built-in KB build checks the record's
``eliminated`` list, ``verify``'s DS logic and position rules, and the spread of the DS set.
"""

from __future__ import annotations

import copy
from collections import Counter

import kg_qgen
import pytest
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.ds_clues import class_relation
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.verify.ds_positions import ds_position_check, last_survivor
from kg_qgen.verify.logic import logic_problem

MANY = MatchConfig(max_per_target=100)
FOOTBALL = ("gk", "mf", "df", "fw")
BASEBALL = ("fb", "sp", "rf")


def _players(baseball: tuple[str, ...] = BASEBALL) -> KnowledgeGraph:
    """Four football and (by default) three baseball positions, three players per position."""
    g = KnowledgeGraph()
    g.add_relation("P413", "position played on team / speciality")
    g.add_relation("P641", "sport")
    for pos in FOOTBALL + baseball:
        g.add_entity(pos, {"gk": "goalkeeper", "mf": "midfielder"}.get(pos, f"pos {pos}"))
        g.add_fact(pos, "P641", "football" if pos in FOOTBALL else "baseball")
        for i in range(3):
            g.add_entity(f"{pos}{i}", f"Player {pos.upper()} Number {i}")
            g.add_fact(f"{pos}{i}", "P413", pos)
    return g


def _sound(g: KnowledgeGraph, m) -> None:
    """Brute force over the graph: every clue fits its option and no other option."""
    opts = m.extra["options"]
    clues = m.extra["clues"]
    assert sorted(c.option for c in clues) == sorted(o for o in opts if o != m.answer)
    assert m.premises == [m.target, *(c.fact for c in clues)]
    for c in clues:
        f = c.fact
        assert g.has_fact(f.subject, f.relation, f.object) and f != m.target
        assert c.other not in opts and c.other != m.target.subject
        if c.side == "object":  # "the r' of x": x has exactly one r' value, the option
            assert [
                x.object for x in g.facts() if (x.subject, x.relation) == (f.subject, f.relation)
            ] == [c.option]
        else:  # "the one whose r' is v": no other option has v
            assert [o for o in opts if g.has_fact(o, f.relation, f.object)] == [c.option]


def test_options_are_of_the_gold_class_and_every_distractor_is_ruled_out():
    g = _players()
    idx = GraphIndex.build(g)
    assert class_relation(idx, "P413", "position") == "P641"  # derived, not listed
    ms = find_matches(idx, "DS", MANY, seed=0)
    assert ms
    for m in ms:
        sports = {next(iter(idx.objects(o, "P641"))) for o in m.extra["options"]}
        assert len(sports) == 1  # never a baseball position for a footballer
        assert len(m.extra["options"]) == 3 and len(m.extra["clues"]) == 2
        _sound(g, m)


def test_no_item_when_the_gold_class_has_too_few_members():
    g = _players(baseball=BASEBALL[:1])  # one baseball position: nothing of its class to offer
    stats: Counter[str] = Counter()
    ms = find_matches(GraphIndex.build(g), "DS", MANY, seed=0, stats=stats)
    assert ms and all(m.answer in FOOTBALL for m in ms)
    # the three first basemen (and the sport facts: two sports only)
    assert stats["fewer distractors of the gold's class than ds_options needs"] >= 3


def _countries(currency_shared: bool) -> KnowledgeGraph:
    g = KnowledgeGraph()
    for rid, label in [
        ("P27", "country of citizenship"),
        ("P30", "continent"),
        ("P38", "currency"),
    ]:
        g.add_relation(rid, label)
    for c, name, cur in [
        ("fr", "France", "euro"),
        ("de", "Germany", "euro"),
        ("it", "Italy", "lira"),
    ]:
        g.add_entity(c, name)
        g.add_fact(c, "P30", "eu")
        g.add_fact(c, "P38", cur if currency_shared else f"{c} money")
    for i, c in enumerate(["fr", "de", "it"]):
        g.add_entity(f"p{i}", f"Person Number {i}")
        g.add_fact(f"p{i}", "P27", c)
    return g


def test_a_clue_shared_by_two_options_never_eliminates():
    # currency is not single-valued evidence here: "the one whose currency is euro" fits France
    # and Germany alike, so it may not rule either out; the citizenship of others may
    g = _countries(currency_shared=True)
    ms = find_matches(GraphIndex.build(g), "DS", MANY, seed=0)
    assert ms
    for m in ms:
        assert all(c.fact.relation != "P38" for c in m.extra["clues"])
        _sound(g, m)


def test_the_subject_name_hinting_an_option_drops_or_avoids_it():
    g = _countries(currency_shared=False)
    g.add_entity("gp", "French Grand Prix")  # "French": the demonym of France
    g.add_entity("jgp", "German Open")
    g.add_fact("gp", "P27", "fr")
    g.add_fact("jgp", "P27", "it")
    stats: Counter[str] = Counter()
    ms = find_matches(GraphIndex.build(g), "DS", MANY, seed=0, stats=stats)
    assert all(m.target.subject != "gp" for m in ms)  # the gold is hinted: dropped
    assert stats["the subject's name hints the gold"] >= 1
    for m in ms:  # a distractor the name hints is never offered
        assert not (m.target.subject == "jgp" and "de" in m.extra["options"])


def test_gold_slot_is_uniform_and_clue_order_is_drawn_apart():
    g = _players()
    for pos in FOOTBALL + BASEBALL:  # more players: more targets to draw slots for
        for i in range(3, 30):
            g.add_entity(f"{pos}{i}", f"Player {pos.upper()} Number {i}")
            g.add_fact(f"{pos}{i}", "P413", pos)
    ms = find_matches(GraphIndex.build(g), "DS", MANY, seed=3)
    assert len(ms) >= 150
    slots = Counter(m.extra["options"].index(m.answer) for m in ms)
    assert all(abs(slots[i] / len(ms) - 1 / 3) < 0.08 for i in range(3)), slots
    # with two clues, the clue order follows the option order about half the time
    same = sum(
        [c.option for c in m.extra["clues"]] == [o for o in m.extra["options"] if o != m.answer]
        for m in ms
    )
    assert 0.38 < same / len(ms) < 0.62


@pytest.fixture(scope="module")
def builtin_ds():
    graph = kg_qgen.load_source("builtin")
    result = kg_qgen.build(graph, per_type=100, types=("DS",), seed=0)
    return graph, [q for q in result.questions if q["type"] == "DS"], result


def test_records_list_every_eliminated_option_with_its_fact(builtin_ds):
    graph, ds, result = builtin_ds
    assert len(ds) == 100 and result.verification["ok"]
    for q in ds:
        elim = q["eliminated"]
        assert len(elim) == len(q["options"]) - 1
        assert sorted(e["option"] for e in elim) == sorted(
            o for o in q["options"] if o != q["answer"]
        )
        assert [e["fact"] for e in elim] == q["premises"][1:]
        assert [e["fact_ids"] for e in elim] == q["premise_ids"][1:]
        assert logic_problem(q, graph) is None


def test_verify_rejects_a_wrong_or_missing_elimination(builtin_ds):
    graph, ds, _ = builtin_ds
    q = ds[0]
    dropped = copy.deepcopy(q)
    dropped["eliminated"] = dropped["eliminated"][:1]
    dropped["premises"], dropped["premise_ids"] = (
        dropped["premises"][:2],
        dropped["premise_ids"][:2],
    )
    assert "every option but the gold" in (logic_problem(dropped, graph) or "")
    malformed = copy.deepcopy(q)
    malformed["eliminated"][0]["fact_ids"] = {"subject": "x"}
    assert "field 'eliminated'" in (logic_problem(malformed, graph) or "")
    old_form = copy.deepcopy(q)  # round two's single label is refused, naming the field
    old_form["eliminated"] = q["eliminated"][0]["option"]
    assert "field 'eliminated' must be a list" in (logic_problem(old_form, graph) or "")
    swapped = copy.deepcopy(q)  # the first clue now claims to rule out the gold
    gold = swapped["answer_id"]
    swapped["eliminated"][0]["option_id"] = gold
    swapped["eliminated"][0]["option"] = swapped["answer"]
    assert logic_problem(swapped, graph) is not None


def test_spread_of_the_builtin_ds_set(builtin_ds):
    _, ds, _ = builtin_ds
    golds = Counter(q["answer"] for q in ds)
    frames = Counter(q["template"] for q in ds)
    facts = Counter(("DS", tuple(tuple(p.values()) for p in q["premise_ids"])) for q in ds)
    targets = Counter(tuple(q["target_ids"].values()) for q in ds)
    assert golds.most_common(1)[0][1] <= 30 and frames.most_common(1)[0][1] <= 20
    assert max(facts.values()) == 1 and max(targets.values()) == 1


def test_position_rules_pass_the_build_and_fail_a_biased_one(builtin_ds):
    _, ds, _ = builtin_ds
    report = ds_position_check(ds)
    assert report["judged"] and report["ok"], report["detail"]
    # round two's design: the gold last in about half the items (here every second item)
    biased = copy.deepcopy(ds)
    for i, q in enumerate(biased):
        if i % 2 == 0:
            q["options"] = [o for o in q["options"] if o != q["answer"]] + [q["answer"]]
    bad = ds_position_check(biased)
    assert not bad["ok"] and bad["rules"]["last_survivor"] > bad["chance"] + 0.10
    assert ds_position_check(biased[:99])["ok"]  # under 100 items: reported, not judged


def test_last_survivor_skips_options_a_clue_names():
    q = "Is it Paris, Rome or Berlin? It is not Berlin."
    assert last_survivor(q, ["Paris", "Rome", "Berlin"]) == 1
    assert last_survivor("Paris, Rome or Berlin?", ["Paris", "Rome", "Berlin"]) == 2


def test_an_option_named_after_the_subject_or_a_clue_entity_is_never_offered():
    # "Cuban peso" for the currency of Cuba is read off the names (the demonym "Cuban"), and a
    # clue "the currency of Egypt" names "Egyptian pound": neither may appear
    g = KnowledgeGraph()
    g.add_relation("P38", "currency")
    g.add_relation("P30", "continent")
    for c, cur in [("Cuba", "Cuban peso"), ("Egypt", "Egyptian pound"), ("Japan", "Japanese yen"),
                   ("France", "euro"), ("Germany", "euro"), ("Chile", "peso"),
                   ("Vietnam", "dong"), ("Israel", "shekel")]:  # fmt: skip
        g.add_entity(c, c)
        g.add_entity(cur, cur)
        g.add_fact(c, "P38", cur)
    idx = GraphIndex.build(g)
    ms = find_matches(idx, "DS", MANY, seed=0)
    assert ms
    for m in ms:
        subject = m.target.subject
        for o in m.extra["options"]:
            assert not (subject in ("Cuba", "Egypt", "Japan") and o.startswith(subject[:4]))
        for c in m.extra["clues"]:
            assert not c.option.startswith(c.other[:4])  # "Egypt" never rules out "Egyptian pound"


def test_position_rules_catch_round_two_records(builtin_ds):
    # round two's records: one option eliminated (``eliminated`` a label), two left, and the
    # gold's place among the two decides; a reader who drops the eliminated one and takes the
    # last one left is right about half the time against a chance of one in three
    _, ds, _ = builtin_ds
    old = copy.deepcopy(ds)
    for q in old:
        q["eliminated"] = q["eliminated"][0]["option"]
    report = ds_position_check(old)
    assert not report["ok"] and report["rules"]["last_survivor"] > report["chance"] + 0.10
    assert report["rules"]["last_survivor"] == pytest.approx(
        sum(
            max(i for i, o in enumerate(q["options"]) if o != q["eliminated"])
            == q["options"].index(q["answer"])
            for q in old
        )
        / len(old)
    )
