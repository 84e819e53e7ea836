"""LLMQuestionGenerator against a scripted OpenAI-compatible endpoint.

The endpoint is :class:`kg_qgen.llm.testing.ScriptedChatServer`, a stdlib ``http.server`` started
by each test on 127.0.0.1: a scripted stand-in for a real endpoint, reached through the real
``openai`` client. The "echo" script (``echo_generation_reply``) writes questions from the instructions in each prompt,
so what the generator keeps depends on what its prompts actually say.
"""

from __future__ import annotations

import json

import pytest
from kg_qgen.generate.registry import get_generator
from kg_qgen.llm.cache import CachedBackend
from kg_qgen.llm.generator import GENERATION_CHECK, LLMQuestionGenerator, parse_generation
from kg_qgen.llm.jsonparse import ParseError, extract_json
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.prompts import PROMPT_VERSION, TYPE_TASKS, generation_prompt
from kg_qgen.llm.testing import Reply, ScriptedChatServer
from kg_qgen.llm.testing import echo_generation_reply as echo
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.sources.builtin import load_builtin
from kg_qgen.verify.deterministic import question_rules
from kg_qgen.verify.leak import find_leak

RULES = question_rules()  # what the registry's "llm" generator is given


@pytest.fixture(scope="module")
def graph():
    return load_builtin()


@pytest.fixture(scope="module")
def matches(graph):
    index = GraphIndex.build(graph)
    return {t: find_matches(index, t, MatchConfig(max_matches=3), seed=1) for t in QUESTION_TYPES}


def _user(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def make_backend(server: ScriptedChatServer, **kw) -> OpenAIBackend:
    kw.setdefault("backoff_base", 0.01)
    return OpenAIBackend(server.base_url, "scripted-model", api_key="sk-test", **kw)


def test_every_type_gets_its_own_prompt_and_a_leak_free_record(graph, matches) -> None:
    flat = [m for t in QUESTION_TYPES for m in matches[t]]
    assert {m.type for m in flat} == set(QUESTION_TYPES)
    with ScriptedChatServer(echo) as server:
        gen = LLMQuestionGenerator(make_backend(server), RULES, seed=0)
        records = gen.generate(flat, graph)
        prompts = [_user(r["body"]) for r in server.requests]
    assert gen.rejects == []
    assert len(records) == len(flat) == len(prompts)
    # requests run concurrently: pair each match with the prompt the server received for it
    expected = [generation_prompt(m, graph)[1]["content"] for m in flat]
    assert sorted(expected) == sorted(prompts)
    for m, prompt, rec in zip(flat, expected, records, strict=True):
        assert prompt.startswith(f"Task: {TYPE_TASKS[m.type]}.")
        assert rec["type"] == m.type and rec["generator"] == "llm"
        assert rec["prompt_version"] == PROMPT_VERSION and rec["llm_attempts"] == 1
        assert find_leak(rec, graph) is None, rec["question"]
        if m.type in ("HS", "MP", "MT") and m.bridge is not None:  # MT: false antecedents
            bridge = graph.label(m.bridge)
            chain = prompt.split("Write a question")[0]
            # the chain shows [BRIDGE] where the bridge would be (its label may still occur
            # inside another name, e.g. "India" in "Indian rupee")
            lines = chain.splitlines()
            hop1 = next(i for i, x in enumerate(lines) if x.endswith("| [BRIDGE]"))
            assert lines[hop1 + 1].startswith("[BRIDGE] | ")
            assert not any(x.endswith(f"| {bridge}") or x.startswith(f"{bridge} |") for x in lines)
            # named exactly once, in the instruction not to mention it
            assert prompt.count(f'"{bridge}"') == 1
            assert f'[BRIDGE] is "{bridge}", which must not be mentioned' in prompt
        if m.type == "LL":
            assert m.extra["alias"] in rec["question"]
    # type-specific: the seven prompts differ in their task line
    assert len({p.splitlines()[0] for p in prompts}) == len(QUESTION_TYPES)


def test_malformed_json_is_reasked_and_then_used(graph, matches) -> None:
    def script(body: dict, n: int) -> Reply:
        if len(body["messages"]) == 2:  # first ask: prose around broken JSON
            return Reply(content='Sure! {"questions": ["What is', status=200)
        return echo(body, n)

    with ScriptedChatServer(script) as server:
        gen = LLMQuestionGenerator(make_backend(server), RULES, max_parse_retries=2)
        records = gen.generate(matches["SH"], graph)
        second = server.requests[-1]["body"]["messages"]
    assert gen.rejects == [] and len(records) == len(matches["SH"])
    assert all(r["llm_attempts"] == 2 for r in records)
    assert len(server.requests) == 2 * len(matches["SH"])
    assert second[2] == {"role": "assistant", "content": 'Sure! {"questions": ["What is'}
    assert "cannot be used: no valid JSON object" in second[3]["content"]


def test_persistently_bad_output_becomes_explicit_rejects(graph, matches) -> None:
    with ScriptedChatServer(lambda b, n: Reply(content="I cannot help with that.")) as server:
        gen = LLMQuestionGenerator(make_backend(server), RULES, max_parse_retries=2)
        records, rejects = gen.generate_with_rejects(matches["HS"], graph)
        n_requests = len(server.requests)
    assert records == []
    assert len(rejects) == len(matches["HS"]) and n_requests == 3 * len(matches["HS"])
    for rj in rejects:
        assert rj.check == GENERATION_CHECK
        assert "unusable reply after 3 attempt(s): no valid JSON object" in rj.reason
        assert rj.record["type"] == "HS" and rj.record["llm_reply"] == "I cannot help with that."


def test_first_leak_free_paraphrase_is_kept_and_all_leaking_is_rejected(graph, matches) -> None:
    m = matches["SH"][0]
    answer, subject = graph.label(m.answer), graph.label(m.target.subject)
    clean = f"Tell me the answer about {subject}: what is it?"
    leaky = f"Is the answer about {subject} {answer}?"

    def script(body: dict, n: int) -> Reply:
        qs = [leaky, leaky, clean] if n == 0 else [leaky, leaky, leaky]
        return Reply(content=json.dumps({"questions": qs, "answer_aliases": ["x" * 3]}))

    with ScriptedChatServer(script) as server:
        gen = LLMQuestionGenerator(make_backend(server), RULES, max_parse_retries=1)
        records, _ = gen.generate_with_rejects([m], graph)
        _, rejects = gen.generate_with_rejects([m], graph)
    assert [r["question"] for r in records] == [clean]
    assert records[0]["paraphrases"] == [leaky, leaky, clean]
    assert len(rejects) == 1 and "contains the answer" in rejects[0].reason


def test_timeouts_become_rejects_with_a_clear_reason(graph, matches) -> None:
    with ScriptedChatServer(lambda b, n: Reply(content="{}", delay=1.5)) as server:
        gen = LLMQuestionGenerator(make_backend(server, timeout=0.3, max_retries=1), RULES)
        records, rejects = gen.generate_with_rejects(matches["SH"][:2], graph)
    assert records == [] and len(rejects) == 2
    for rj in rejects:
        assert rj.check == GENERATION_CHECK
        assert (
            "backend error" in rj.reason and "timed out after 0.3 s after 2 attempt(s)" in rj.reason
        )


def test_cache_answers_the_second_run_without_requests(graph, matches, tmp_path) -> None:
    flat = matches["HS"] + matches["CC"]
    with ScriptedChatServer(echo) as server:
        backend = CachedBackend(make_backend(server), tmp_path / "cache")
        first = LLMQuestionGenerator(backend, RULES, seed=3).generate(flat, graph)
        n_first = len(server.requests)
        again = CachedBackend(make_backend(server), tmp_path / "cache")
        second = LLMQuestionGenerator(again, RULES, seed=3).generate(flat, graph)
        assert len(server.requests) == n_first == len(flat)  # zero requests the second time
    assert again.hits == len(flat) and again.misses == 0
    assert first == second


def test_registry_builds_the_llm_generator(graph, matches) -> None:
    with ScriptedChatServer(echo) as server:
        gen = get_generator("llm", seed=5, backend=make_backend(server), n_paraphrases=2)
        assert isinstance(gen, LLMQuestionGenerator) and gen.seed == 5
        assert gen.rules.leak is find_leak  # held to kg-qgen verify's per-question rules
        assert len(gen.generate(matches["LL"], graph)) == len(matches["LL"])
        assert "3 strings" not in _user(server.requests[0]["body"])
    with pytest.raises(ValueError, match="needs backend"):
        get_generator("llm")


def test_parsing_is_robust() -> None:
    fenced = '```json\n{"questions": ["A?", "", 3, "B?"], "answer_aliases": "x"}\n```'
    assert parse_generation(fenced, 3) == (["A?", "B?"], ["x"])
    prose = 'Here: {"questions": ["Q {1}?"], "note": "}"} and more {bad'
    assert parse_generation(prose, 3) == (["Q {1}?"], [])
    assert extract_json("noise [1, 2] noise", list) == [1, 2]
    for bad, msg in [
        ("", "empty"),
        ('{"questions": "   "}', "no non-empty"),
        ('{"questions": {"a": 1}}', "must be a list"),
        ('{"questions": ["A?"], "answer_aliases": 4}', "answer_aliases"),
    ]:
        with pytest.raises(ParseError, match=msg):
            parse_generation(bad, 3)
