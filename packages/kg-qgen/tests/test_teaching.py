"""The teaching corpus (issue 36 items 2-3): statements and single-hop questions of each fact,
alias examples, and worked examples of every logic type on facts disjoint from an excluded set."""

from __future__ import annotations

import kg_qgen
import pytest
from kg_qgen.teaching import (
    fact_key,
    fact_statements,
    sentence,
    teaching_corpus,
    worked_examples,
)

MULTI = ("HS", "MP", "LL", "CC", "DS", "MT")


@pytest.fixture(scope="module")
def graph() -> kg_qgen.KnowledgeGraph:
    return kg_qgen.load_source("builtin")


def test_every_fact_gets_distinct_statements_and_questions_that_name_its_object(graph) -> None:
    facts = list(graph.facts())[:40]
    out = fact_statements(graph, facts, statements=3, questions=2, seed=0)
    by_fact: dict[tuple, list[dict]] = {}
    for e in out:
        assert set(e) == {"prompt", "completion", "kind", "facts"}
        by_fact.setdefault(fact_key(e["facts"][0]), []).append(e)
    assert len(by_fact) == len({fact_key(graph.fact_dict(f)) for f in facts})
    for key, examples in by_fact.items():
        statements = [e for e in examples if e["kind"] == "statement"]
        questions = [e for e in examples if e["kind"] == "question"]
        assert 2 <= len(statements) <= 3 and 1 <= len(questions) <= 2, key
        assert len({e["completion"] for e in statements}) == len(statements), key
        for e in statements:  # the sentence states the fact: subject and object both named
            text = e["completion"].lower()  # a sentence may open with the object, capitalised
            assert key[0].lower() in text and key[2].lower() in text, e
            assert ".." not in e["completion"] and ".." not in e["prompt"]
        for e in questions:  # a short committed answer: the object, one sentence
            assert e["completion"] == sentence(key[2]) and e["prompt"].endswith("?")


def test_worked_examples_never_rest_on_an_excluded_fact(graph) -> None:
    everything, counts, available = worked_examples(graph, per_type=10**6, types=MULTI, seed=0)
    assert set(counts) == set(MULTI) and all(available[t] > 0 for t in MULTI)
    # exclude the facts of half the questions: no kept example may use one of them
    excluded = {fact_key(p) for e in everything[::2] for p in e["facts"]}
    kept, counts, available = worked_examples(
        graph, exclude=excluded, per_type=10**6, types=MULTI, seed=0
    )
    assert kept and len(kept) < len(everything)
    for e in kept:
        assert not any(fact_key(p) in excluded for p in e["facts"]), e
        assert e["kind"].startswith("worked:") and e["completion"].endswith(".")
    assert sum(counts.values()) == len(kept)
    assert counts == available  # per_type was no limit


def test_worked_examples_are_capped_per_type_and_seeded(graph) -> None:
    a, counts, available = worked_examples(graph, per_type=4, types=MULTI, seed=3)
    b, _, _ = worked_examples(graph, per_type=4, types=MULTI, seed=3)
    c, _, _ = worked_examples(graph, per_type=4, types=MULTI, seed=4)
    assert a == b and a != c
    assert counts == {t: min(4, available[t]) for t in MULTI}
    # option types teach one of the shown options as the answer
    for e in a:
        if e["kind"] in ("worked:DS", "worked:MT"):
            assert e["completion"][:-1] in e["prompt"]


def test_the_corpus_leaves_out_the_statements_it_is_told_to(graph) -> None:
    facts = [fact_key(graph.fact_dict(f)) for f in graph.facts()]
    keep, drop = set(facts[:30]), set(facts[30:60])
    corpus = teaching_corpus(graph, statement_facts=keep, exclude=keep | drop, per_type=2)
    stated = {fact_key(e["facts"][0]) for e in corpus.examples if e["kind"] == "statement"}
    assert stated == keep and corpus.n_statement_facts == 30
    worked = [e for e in corpus.examples if e["kind"].startswith("worked:")]
    assert worked and not any(fact_key(p) in keep | drop for e in worked for p in e["facts"])
    assert sum(corpus.counts.values()) == len(corpus.examples)
    prompt_of = teaching_corpus(graph, statement_facts=(), per_type=1, prompt_of=lambda q: "Q")
    assert {e["prompt"] for e in prompt_of.examples} == {"Q"}


def test_a_fact_asked_elsewhere_is_taught_under_that_prompt_first(graph) -> None:
    facts = list(graph.facts())[:12]
    keys = [fact_key(graph.fact_dict(f)) for f in facts]
    asked = {k: f"Odd wording for {k[0]}? Give only the answer." for k in keys[::2]}
    plain = fact_statements(graph, facts, statements=1, questions=2, seed=3)
    out = fact_statements(graph, facts, statements=1, questions=2, seed=3, asked=asked)
    assert len(out) == len(plain)
    for key in keys:
        got = [
            e["prompt"] for e in out if e["kind"] == "question" and fact_key(e["facts"][0]) == key
        ]
        was = [
            e["prompt"] for e in plain if e["kind"] == "question" and fact_key(e["facts"][0]) == key
        ]
        if key in asked:  # the asked prompt first, then the relation's own questions, no repeat
            assert got[0] == asked[key] and got[1:] == [q for q in was if q != asked[key]][:1]
        else:  # untouched: the same seeded questions as without ``asked``
            assert got == was
    # the statements (and every other example) are the same as without ``asked``
    assert [e for e in out if e["kind"] != "question"] == [
        e for e in plain if e["kind"] != "question"
    ]
    corpus = teaching_corpus(graph, statement_facts=keys, questions=1, types=(), asked=asked)
    firsts = {
        fact_key(e["facts"][0]): e["prompt"] for e in corpus.examples if e["kind"] == "question"
    }
    assert all(firsts[k] == p for k, p in asked.items())
