"""`kg-qgen score`: LLM quality judges (paper table 6) against a scripted judge server.

The endpoint is :class:`kg_qgen.llm.testing.ScriptedChatServer` - a stdlib HTTP server on
127.0.0.1 that each test starts and that speaks the OpenAI chat-completions protocol - answering
with :class:`kg_qgen.quality.testing.ScriptedQualityJudge`, fixed scoring rules, not a model.
Requests go through the real ``openai`` client and kg-qgen's OpenAIBackend / CachedBackend.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from kg_qgen.llm.jsonparse import ParseError
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.testing import Reply, ScriptedChatServer
from kg_qgen.quality import (
    CRITERIA,
    QualityJudge,
    agreement_with_human,
    bootstrap_mean,
    parse_scores,
    pearson,
    quality_prompt,
    roc_auc,
    score_with_judges,
    table6,
)
from kg_qgen.quality.testing import ScriptedQualityJudge, expected_scores
from kg_qgen.review.session import ReviewSession
from kg_qgen.review.storage import Annotation
from review_support import build_set

SECRET = "sk-judge-SECRET-0987654321"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return build_set(tmp_path_factory.mktemp("set") / "builtin", per_type=6)


@pytest.fixture(scope="module")
def records(built: Path) -> list[dict]:
    return [json.loads(x) for x in (built / "questions.jsonl").read_text().splitlines()]


def expected(rec: dict) -> dict[str, float]:
    return expected_scores(rec["question"], rec.get("bridge"))


def test_parse_scores_accepts_fenced_and_string_numbers_rejects_the_rest():
    scores, reason = parse_scores(
        'Sure:\n```json\n{"logical_correctness": 90, "clarity": "85", "naturalness": 70.5, "reason": "ok"}\n```'
    )
    assert scores == {"logical_correctness": 90.0, "clarity": 85.0, "naturalness": 70.5}
    assert reason == "ok"
    for bad, why in [
        ('{"logical_correctness": 90, "clarity": 85}', "missing field"),
        ('{"logical_correctness": 190, "clarity": 85, "naturalness": 1}', "0 to 100"),
        ('{"logical_correctness": true, "clarity": 85, "naturalness": 1}', "0 to 100"),
        ('{"logical_correctness": "high", "clarity": 85, "naturalness": 1}', "0 to 100"),
        ("no json here", "no valid JSON"),
    ]:
        with pytest.raises(ParseError, match=why):
            parse_scores(bad)


def test_prompt_shows_what_an_annotator_sees(records: list[dict]):
    hs = next(r for r in records if r["type"] == "HS")
    text = quality_prompt(hs)[-1]["content"]
    assert f"Question: {hs['question']}" in text and f"Gold answer: {hs['answer']}" in text
    assert "Hypothetical Syllogism" in text and hs["bridge"] in text
    for p in hs["premises"]:
        assert f"{p['subject']} | {p['relation']} | {p['object']}" in text
    ds = next(r for r in records if r["type"] == "DS")
    assert (
        "Options the question lists: " + ", ".join(ds["options"])
        in quality_prompt(ds)[-1]["content"]
    )


def test_judge_scores_every_item_retries_unusable_replies_and_counts_failures(records):
    bad_first = frozenset({records[0]["question"]})
    always_bad = frozenset({records[1]["question"]})
    script = ScriptedQualityJudge(bad_first=bad_first, always_bad=always_bad)
    with ScriptedChatServer(script) as server:
        judge = QualityJudge(
            OpenAIBackend(server.base_url, "judge-a", max_concurrency=4), max_parse_retries=2
        )
        out = judge.score(records)
        assert server.max_in_flight <= 4  # the concurrency limit holds
        n_requests = len(server.requests)
    assert [s.id for s in out] == [r["id"] for r in records]
    assert out[0].attempts == 2 and out[0].scores == expected(records[0])
    assert out[1].scores is None and out[1].attempts == 3 and "unusable reply" in out[1].error
    for rec, s in zip(records[2:], out[2:], strict=True):
        assert s.scores == expected(rec) and s.attempts == 1
        assert s.overall == pytest.approx(sum(expected(rec).values()) / 3)
    assert n_requests == len(records) + 1 + 2  # one repair for item 0, two for item 1


def test_request_failures_are_retried_then_recorded_not_guessed(records):
    def script(body: dict, n: int) -> Reply:
        if n == 0:
            return Reply(status=503)  # retried by the backend
        if "Question: " + records[2]["question"] in body["messages"][-1]["content"]:
            return Reply(status=400, error_message="context too long")  # not retryable
        return ScriptedQualityJudge()(body, n)

    with ScriptedChatServer(script) as server:
        backend = OpenAIBackend(server.base_url, "j", max_concurrency=1, backoff_base=0.01)
        out = QualityJudge(backend).score(records[:4])
    assert [s.scores is not None for s in out] == [True, True, False, True]
    assert "request failed" in out[2].error and "HTTP 400" in out[2].error


def test_statistics_known_values():
    assert roc_auc([3, 4], [1, 2]) == 1.0
    assert roc_auc([1], [2]) == 0.0
    assert roc_auc([2, 2], [2, 1]) == pytest.approx(0.75)  # ties count one half
    assert roc_auc([1], []) is None
    assert pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    m = bootstrap_mean([80.0, 90.0, 100.0, 70.0], n_resamples=500, seed=3)
    assert m.value == 85.0 and 70 <= m.ci_low < 85 < m.ci_high <= 100
    assert bootstrap_mean([80.0, 90.0, 100.0, 70.0], n_resamples=500, seed=3) == m  # seeded
    assert bootstrap_mean([], 10).undefined_reason == "no scored items"


def test_agreement_with_human_auc_and_correlation(records):
    from kg_qgen.quality.judge import ItemScore

    def item(i: str, logical: float) -> ItemScore:
        return ItemScore(
            i, "HS", "j", {"logical_correctness": logical, "clarity": 1, "naturalness": 1}, 1
        )

    scores = [item("a", 95), item("b", 90), item("c", 30), item("d", 60), item("e", 99)]
    anns = [
        Annotation("x", "a", True), Annotation("y", "a", True),
        Annotation("x", "b", True), Annotation("y", "b", False),  # tied: not in the AUC
        Annotation("x", "c", False), Annotation("y", "c", False),
        Annotation("x", "d", True), Annotation("y", "d", True),
        Annotation("x", "z", True),  # not scored by the judge
    ]  # fmt: skip
    a = agreement_with_human(scores, anns)
    assert (a["n_items"], a["n_valid"], a["n_invalid"], a["n_tied"]) == (4, 2, 1, 1)
    assert a["auc"] == 1.0  # both valid items score above the invalid one
    assert a["pearson_r"] == pytest.approx(pearson([1, 0.5, 0, 1], [95, 90, 30, 60]))
    only_valid = agreement_with_human(scores, [Annotation("x", "a", True)])
    assert only_valid["auc"] is None and "AUC needs" in only_valid["undefined_reason"]


def test_two_judges_table6_with_human_row(records, built: Path, tmp_path: Path):
    session = ReviewSession.open(built, per_type=2, seed=0, db_path=tmp_path / "r.sqlite")
    bad = {session.sample[k].item_id for k in (0, 3, 6)}
    for s in session.sample:
        session.store.save("ann", s.item_id, verdict=s.item_id not in bad)
    by_id = {r["id"]: r for r in records}
    overrides = {
        by_id[i]["question"]: {"logical_correctness": 10, "clarity": 50, "naturalness": 50}
        for i in bad
    }
    with (
        ScriptedChatServer(ScriptedQualityJudge()) as s1,
        ScriptedChatServer(ScriptedQualityJudge(overrides)) as s2,
    ):
        judges = [QualityJudge(OpenAIBackend(s1.base_url, "m1"), name="lenient"),
                  QualityJudge(OpenAIBackend(s2.base_url, "m2"), name="picky")]  # fmt: skip
        scores = score_with_judges(records, judges)
    t = table6(
        scores, human=session.summary(), annotations=session.store.annotations(), n_resamples=300
    )
    assert t["types"] == ["SH", "HS", "MP", "LL", "CC", "DS", "MT"]
    hs = [r for r in records if r["type"] == "HS"]
    want = sum(sum(expected(r).values()) / 3 for r in hs) / len(hs)
    assert t["judges"]["lenient"]["per_type"]["HS"]["value"] == pytest.approx(want)
    assert t["judges"]["lenient"]["per_type"]["all"]["n"] == len(records)
    assert t["human"]["all"]["value"] == pytest.approx(100 * 11 / 14)
    assert (
        t["agreement"]["picky"]["auc"] == 1.0
    )  # it gives the humans' invalid items the lowest logic
    assert t["agreement"]["lenient"]["n_items"] == 14
    with pytest.raises(ValueError, match="unique"):
        score_with_judges(records, [judges[0], judges[0]])


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg_qgen.cli", *args],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


def test_cli_writes_table6_caches_and_never_shows_the_key(built: Path, tmp_path: Path):
    out = tmp_path / "q"
    env = {**os.environ, "JUDGE_KEY": SECRET}
    with (
        ScriptedChatServer(ScriptedQualityJudge()) as a,
        ScriptedChatServer(ScriptedQualityJudge()) as b,
    ):
        args = ["score", str(built), "--judge-model", "m-a", "--base-url", a.base_url,
                "--judge-model", "m-b", "--base-url", b.base_url, "--judge-name", "A",
                "--judge-name", "B", "--api-key-env", "JUDGE_KEY", "--sample", "3",
                "--out", str(out), "--max-concurrency", "3", "--bootstrap", "200"]  # fmt: skip
        first = run_cli(*args, env=env)
        assert first.returncode == 0, first.stderr
        assert len(a.requests) == 21 and len(b.requests) == 21  # 7 types x 3, each judge
        assert a.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
        again = run_cli(*args, env=env)
        assert again.returncode == 0, again.stderr
        assert len(a.requests) == 21  # everything came from the cache
    assert "A: cache 21 hit(s), 0 miss(es)" in again.stdout
    assert "| A |" in first.stdout and "per 100 questions" in first.stdout
    lines = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert len(lines) == 42 and {x["judge"] for x in lines} == {"A", "B"}
    assert set(CRITERIA) <= set(lines[0]) and lines[0]["error"] is None
    table = json.loads((out / "table6.json").read_text())
    assert table["settings"]["n_questions"] == 21 and table["judges"]["B"]["n_failed"] == 0
    for path in [*out.rglob("*")]:
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
    assert SECRET not in first.stdout + first.stderr + again.stdout + again.stderr


def test_cli_usage_errors(built: Path):
    r = run_cli("score", str(built), "--judge-model", "a", "--judge-model", "b",
                "--base-url", "http://127.0.0.1:9/v1", "--base-url", "http://x/v1",
                "--base-url", "http://y/v1")  # fmt: skip
    assert r.returncode == 2 and "--base-url given 3 times for 2 --judge-model" in r.stderr
    env = {k: v for k, v in os.environ.items() if k != "NO_SUCH_KEY_VAR"}
    r = run_cli("score", str(built), "--judge-model", "a", "--base-url", "http://127.0.0.1:9/v1",
                "--api-key-env", "NO_SUCH_KEY_VAR", env=env)  # fmt: skip
    assert r.returncode == 2 and "NO_SUCH_KEY_VAR" in r.stderr and "not set" in r.stderr
