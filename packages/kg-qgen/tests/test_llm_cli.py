"""``kg-qgen build`` with the ``--llm-*`` options, against a scripted OpenAI-compatible endpoint.

The endpoint is :class:`kg_qgen.llm.testing.ScriptedChatServer` (stdlib ``http.server`` on
127.0.0.1, started by the test): a scripted stand-in for a real endpoint. Generation replies are
written from each prompt's instructions; decomposition replies look the facts up in the graph.
"""

from __future__ import annotations

import json
import re

from click.testing import CliRunner
from kg_qgen.cli import cli
from kg_qgen.llm.testing import Reply, ScriptedChatServer, echo_generation_reply
from kg_qgen.sources.builtin import load_builtin


def _decompose(question: str, graph) -> dict:
    """Steps for the echo questions "What is the r of s?" / "What is the r2 of the r1 of s?"."""
    ids = {graph.label(e.id): e.id for e in graph.entities()}
    rels = {label: rid for rid, label in graph.relations.items()}
    m = re.match(r"What is the (.+?) of the (.+?) of (.+)\?$", question)
    chain = [(m.group(2), m.group(3)), (m.group(1), None)] if m else None
    if chain is None:
        m = re.match(r"What is the (.+?) of (.+)\?$", question)
        chain = [(m.group(1), m.group(2))]
    steps, subject = [], None
    for rel_label, subj_label in chain:
        subject = ids[subj_label] if subj_label else subject
        obj = next(
            f.object
            for f in graph.facts()
            if f.subject == subject and f.relation == rels[rel_label]
        )
        steps.append(
            {"subject": graph.label(subject), "relation": rel_label, "answer": graph.label(obj)}
        )
        subject = obj
    return {"steps": steps}


def test_build_with_llm_generation_and_verification(tmp_path, monkeypatch) -> None:
    graph = load_builtin()
    monkeypatch.setenv("KG_QGEN_LLM_API_KEY", "sk-cli-secret-000")

    def script(body: dict, n: int) -> Reply:
        user = body["messages"][-1]["content"]
        if user.startswith("Decompose"):
            question = user.split("Question: ")[1]
            return Reply(content=json.dumps(_decompose(question, graph)))
        if user.startswith("Does the question"):
            return Reply(content='{"unique": true, "reason": "one fact"}')
        return echo_generation_reply(body, n)

    out = tmp_path / "out"
    with ScriptedChatServer(script) as server:
        args = [
            "build",
            "--source",
            "builtin",
            "--types",
            "SH,HS",
            "--per-type",
            "3",
            "--out",
            str(out),
            "--llm-backend",
            "openai",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "scripted",
            "--llm-cache-dir",
            str(tmp_path / "cache"),
            "--llm-generate",
            "--llm-verify",
        ]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        bodies = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert result.exit_code == 0, result.output
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert [q["type"] for q in questions] == ["SH"] * 3 + ["HS"] * 3
    assert all(q["generator"] == "llm" for q in questions)
    manifest = json.loads((out / "manifest.json").read_text())
    text = json.dumps(manifest)
    assert "llm_decomposition" in text and "llm_uniqueness" in text
    assert "sk-cli-secret-000" not in text
    kinds = {b.split("\n")[0][:20] for b in bodies}
    assert any(k.startswith("Task: a single-hop") for k in kinds)
    assert any(k.startswith("Decompose") for k in kinds)
    assert any(k.startswith("Does the question") for k in kinds)


def test_llm_flags_without_a_backend_are_a_usage_error(tmp_path) -> None:
    result = CliRunner().invoke(
        cli, ["build", "--source", "builtin", "--out", str(tmp_path / "o"), "--llm-generate"]
    )
    assert result.exit_code == 2
    assert "need --llm-backend and --llm-model" in result.output


def test_llm_generator_output_passes_the_same_verification(tmp_path) -> None:
    """``--generator llm`` on all seven types: the build verifies before saving, and
    ``kg-qgen verify`` re-checks the saved LLM questions against the source."""
    out = tmp_path / "llm"
    with ScriptedChatServer(echo_generation_reply) as server:
        args = [
            "build",
            "--source",
            "builtin",
            "--per-type",
            "6",
            "--out",
            str(out),
            "--generator",
            "llm",
            "--llm-backend",
            "openai",
            "--llm-base-url",
            server.base_url,
            "--llm-model",
            "scripted",
        ]
        result = CliRunner().invoke(
            cli, args, catch_exceptions=False, env={"KG_QGEN_LLM_API_KEY": "sk-x"}
        )
    assert result.exit_code == 0, result.output
    assert "verification passed" in result.output
    questions = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert {q["type"] for q in questions} == {"SH", "HS", "MP", "LL", "CC", "DS", "MT"}
    assert all(q["generator"] == "llm" for q in questions)
    ds = [q for q in questions if q["type"] == "DS"]
    # one option left: the target plus one clue fact per ruled-out option
    assert all(len(q["premises"]) == len(q["options"]) == 3 for q in ds)
    assert all(len(q["eliminated"]) == 2 for q in ds)
    mt = [q for q in questions if q["type"] == "MT"]
    assert mt and all(len(q["options"]) == 2 and q["answer"] in q["options"] for q in mt)
    verify = CliRunner().invoke(cli, ["verify", str(out), "--source", "builtin"])
    assert verify.exit_code == 0, verify.output
    report = json.loads((out / "verify_report.json").read_text())
    assert report["ok"] and sum(t["passed"] for t in report["per_type"].values()) == len(questions)
    # the same variety figures as for a template set (issue 21 item 7)
    stats = CliRunner().invoke(cli, ["stats", str(out), "--json"])
    assert stats.exit_code == 0, stats.output
    figures = json.loads(stats.output)["generated"]
    assert set(figures["per_type"]) == {"SH", "HS", "MP", "LL", "CC", "DS", "MT"}
    assert all(0.0 <= t["self_bleu"] <= 1.0 for t in figures["per_type"].values())
    mp = figures["per_type"]["MP"]
    assert sum(mp["rule_pairs"].values()) == mp["n"] == 6
    # the same set-level figures as the template path: the MT text classifier, DS option rules
    assert {"mt_text", "ds_options"} <= set(report["set_checks"])
    mt_check = report["set_checks"]["mt_text"]
    assert mt_check["classifier"]["n"] == len(mt) and "not judged" in mt_check["detail"]
    assert mt_check["says_follows"] == [] and mt_check["repeated_facts"] == 0
    # no MT wording filter since round three: nothing for it to hide in two-option items
    assert json.loads((out / "manifest.json").read_text())["mt_wording"] is None
    assert report["set_checks"]["ds_options"]["cue"]["n"] == len(ds)
    # nor choose among draws for variety: the set keeps the generator's wordings
    variety = json.loads((out / "manifest.json").read_text())["wording_variety"]
    assert not variety["redraws"] and variety["changed"] == 0
    assert variety["self_bleu_chosen"] == variety["self_bleu_first_draw"]
    assert "wording variety: one draw (the generator cannot redraw wordings)" in result.output
