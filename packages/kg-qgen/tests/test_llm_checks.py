"""LLM verification checks against a scripted OpenAI-compatible endpoint.

The endpoint is :class:`kg_qgen.llm.testing.ScriptedChatServer` (stdlib ``http.server`` on
127.0.0.1, started by each test): a scripted stand-in for a real endpoint.
"""

from __future__ import annotations

import json

import pytest
from kg_qgen.generate.template import TemplateGenerator
from kg_qgen.llm.checks import (
    DecompositionCheck,
    UniquenessCheck,
    llm_checks,
    relation_matches,
)
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.testing import Reply, ScriptedChatServer
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.sources.builtin import load_builtin


@pytest.fixture(scope="module")
def graph():
    return load_builtin()


@pytest.fixture(scope="module")
def records(graph):
    index = GraphIndex.build(graph)
    out = []
    for t in ("HS", "LL", "SH"):
        matches = find_matches(index, t, MatchConfig(max_matches=2), seed=2)
        out += TemplateGenerator(seed=0).generate(matches, graph)
    return out


def _question(body: dict) -> str:
    user = body["messages"][-1]["content"]
    return user.split("Question: ")[1].split("\n")[0]


def _steps_for(record: dict, right: bool) -> dict:
    steps = []
    for p in record["premises"]:
        answer = p["object"] if right else "Atlantis"
        steps.append(
            {
                "question": f"What is the {p['relation']} of {p['subject']}?",
                "subject": p["subject"].upper(),  # case and punctuation do not matter
                "relation": p["relation"],
                "answer": f"{answer}.",
            }
        )
    return {"steps": steps}


def _backend(server: ScriptedChatServer) -> OpenAIBackend:
    return OpenAIBackend(server.base_url, "judge", backoff_base=0.01)


def test_decomposition_keeps_consistent_and_rejects_inconsistent(graph, records) -> None:
    by_question = {r["question"]: r for r in records}
    wrong = records[0]["question"]

    def script(body: dict, n: int) -> Reply:
        q = _question(body)
        return Reply(content=json.dumps(_steps_for(by_question[q], right=q != wrong)))

    with ScriptedChatServer(script) as server:
        rejects = DecompositionCheck(_backend(server))(records, graph)
        assert len(server.requests) == len(records)
        assert "Decompose the question" in server.requests[0]["body"]["messages"][-1]["content"]
    assert [rj.record["question"] for rj in rejects] == [wrong]
    assert rejects[0].check == "llm_decomposition"
    assert "no decomposition step matches premise" in rejects[0].reason
    assert "Atlantis" in rejects[0].reason


def test_decomposition_accepts_aliases_and_rejects_a_wrong_relation(graph, records) -> None:
    ll = next(r for r in records if r["type"] == "LL")
    p = ll["premises"][0]

    def script(body: dict, n: int) -> Reply:
        rel = p["relation"] if n == 0 else "favourite food"
        step = {"subject": ll["alias"], "relation": rel, "answer": p["object"]}
        return Reply(content=json.dumps({"steps": [step]}))

    with ScriptedChatServer(script) as server:
        check = DecompositionCheck(_backend(server))
        assert check([ll], graph) == []  # subject given by its alias
        rejects = check([ll], graph)
    assert len(rejects) == 1 and "favourite food" in rejects[0].reason


def test_uniqueness_rejects_ambiguous_questions_with_the_judges_reason(graph, records) -> None:
    ambiguous = records[1]["question"]

    def script(body: dict, n: int) -> Reply:
        user = body["messages"][-1]["content"]
        unique = _question(body) != ambiguous
        assert "Proposed answer: " in user
        verdict = {"unique": "true" if unique else False, "reason": "two countries qualify"}
        return Reply(content="```json\n" + json.dumps(verdict) + "\n```")

    with ScriptedChatServer(script) as server:
        rejects = UniquenessCheck(_backend(server))(records, graph)
    assert [rj.record["question"] for rj in rejects] == [ambiguous]
    assert rejects[0].check == "llm_uniqueness"
    assert rejects[0].reason == "judged not uniquely answerable: two countries qualify"


def test_unjudgeable_records_are_rejected_or_kept_as_configured(graph, records) -> None:
    with ScriptedChatServer(lambda b, n: Reply(content="no idea")) as server:
        rejects = UniquenessCheck(_backend(server), max_parse_retries=1)(records[:2], graph)
        assert len(server.requests) == 4  # one re-ask each
        kept = UniquenessCheck(_backend(server), max_parse_retries=0, on_failure="keep")(
            records[:2], graph
        )
    assert len(rejects) == 2 and kept == []
    assert all("could not verify: unusable reply after 2 attempt(s)" in r.reason for r in rejects)
    with ScriptedChatServer(lambda b, n: Reply(status=400)) as server:
        rejects = DecompositionCheck(_backend(server))(records[:1], graph)
    assert (
        "could not verify: backend error" in rejects[0].reason and "HTTP 400" in rejects[0].reason
    )


def test_llm_checks_factory_and_relation_matching() -> None:
    checks = llm_checks(backend=None)  # type: ignore[arg-type]
    assert [c.name for c in checks] == ["llm_decomposition", "llm_uniqueness"]
    with pytest.raises(ValueError, match="on_failure"):
        llm_checks(backend=None, on_failure="maybe")  # type: ignore[arg-type]
    assert relation_matches("place of birth", "birthplace")
    assert relation_matches("country of citizenship", "citizenship")
    assert relation_matches("capital", "Capital city")
    assert not relation_matches("place of birth", "place of death")
    assert not relation_matches("continent", "currency")
