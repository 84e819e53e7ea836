"""MT round three (issue 34): the gold of a two-option MT item cannot be read off its wording.

The verify check (:mod:`kg_qgen.verify.mt_text`) trains a text-only classifier on half of a
build and tests it on the other half; here it stays near chance on a real build of the built-in
KB and reads the gold of two deliberately readable builds: the yes/no design of rounds one to
three (the question's polarity reads the answer) and the two-option design with the gold's
conditional always stated first.
"""

import copy
import random

import pytest
from kg_qgen.generate.template import TemplateGenerator
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.pipeline import build
from kg_qgen.sources.builtin import load_builtin
from kg_qgen.verify.logic import logic_problem
from kg_qgen.verify.mt_text import mt_set_check


@pytest.fixture(scope="module")
def graph():
    return load_builtin()


@pytest.fixture(scope="module")
def mt_set(graph):
    return [q for q in build(graph, per_type=200, seed=0, types=("MT",)).questions]


def test_a_real_build_is_read_at_chance_and_spread(mt_set):
    assert len(mt_set) == 200
    check = mt_set_check(mt_set)
    assert check["ok"], check["detail"]
    clf = check["classifier"]
    assert clf["k"] == 2 and clf["n"] == 200 and clf["accuracy"] <= clf["chance"] + 0.10
    assert check["facts_per_100"] >= 40 and check["repeated_facts"] == 0
    assert check["top_gold_share"] <= 0.30 and check["top_frame_share"] <= 0.20
    assert check["says_follows"] == []
    # the gold's slot among the options is a coin
    slots = [q["options"].index(q["answer"]) for q in mt_set]
    assert 0.4 <= sum(slots) / len(slots) <= 0.6


def test_the_yes_no_design_of_round_three_is_caught(mt_set):
    """The stated antecedent is always the false one, so the ask's polarity reads yes/no."""
    rng = random.Random(0)
    old = []
    for q in mt_set:
        t, d = q["target"], q["distractor_fact"]
        negated = rng.random() < 0.5
        text = (
            f"If the {t['relation']} of {t['subject']} is {d['subject']}, then its "
            f"{d['relation']} is {d['object']}. Is it true that the {t['relation']} of "
            f"{t['subject']} is {'not ' if negated else ''}{d['subject']}?"
        )
        old.append({**q, "question": text, "options": ["yes", "no"],
                    "answer": "yes" if negated else "no"})  # fmt: skip
    check = mt_set_check(old)
    assert check["classifier"]["accuracy"] > 0.9 and not check["ok"]
    assert "text-only classifier" in check["detail"]


def test_gold_conditional_always_first_is_caught(graph):
    """Two options, but the stated order of the conditionals follows the gold."""
    idx = GraphIndex.build(graph)
    matches = find_matches(idx, "MT", MatchConfig(), seed=0)[:200]
    for m in matches:
        m.extra["conditionals"].sort(key=lambda cv: cv[0] != m.answer)
    records = TemplateGenerator(seed=0).generate(matches, graph)
    check = mt_set_check(records)
    assert check["classifier"]["accuracy"] > 0.9 and not check["ok"]


def test_saying_it_follows_fails_at_any_size(mt_set):
    bad = copy.deepcopy(mt_set[:3])
    bad[0]["question"] = bad[0]["question"].replace("?", "? Therefore it is the first.")
    check = mt_set_check(bad)
    assert not check["ok"] and check["says_follows"] == [bad[0]["id"]]
    assert "not judged" in check["detail"]


def test_logic_check_refuses_a_true_distractor_consequent_and_a_wrong_gold(graph, mt_set):
    assert all(logic_problem(q, graph) is None for q in mt_set)
    q = copy.deepcopy(mt_set[0])
    q["answer_id"] = q["distractor_id"]
    assert "answer" in logic_problem(q, graph)
    q = copy.deepcopy(mt_set[0])
    gold_value = q["premise_ids"][1]["object"]
    q["premise_ids"][2] = {**q["premise_ids"][2], "object": gold_value}
    assert logic_problem(q, graph)  # not a fact, or both consequents true: never valid
    q = copy.deepcopy(mt_set[0])
    q["question"] += " Hence the answer is clear."
    assert "nothing follows" in logic_problem(q, graph)
