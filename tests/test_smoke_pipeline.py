"""End to end: `leakres run` (smoke preset, scaled down) on the real SmolLM2-135M model and built-in facts.

Checks that every number in results.json is recomputed consistently from the stored per-item verdicts,
and that a rerun reuses the finished cells instead of generating again (resumability).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from leakres_cli.main import cli

ARGS = ["run", "--quiet", "--n-forget", "6", "--n-retain", "8", "--per-type", "40", "--seed", "0"]


def _cell(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


def test_smoke_run_end_to_end_and_resume(tmp_path: Path, model_cache: Path, monkeypatch) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "Forget Quality" in result.output and "Recovery Rate" in result.output

    results = json.loads((out / "results.json").read_text())
    assert (out / "summary.md").read_text().startswith("# leakres results")
    assert results["config"]["methods"] == ["ga"] and results["config"]["attacks"] == ["probab"]
    assert results["versions"]["torch"].startswith("2.13.0")
    assert set(results["scored_questions"]) == {"SH", "HS"}
    assert len(results["forget_facts"]) == 6
    forget = {json.dumps(f, sort_keys=True) for f in results["forget_facts"]}
    retain = {json.dumps(f, sort_keys=True) for f in results["retain_facts"]}
    assert forget.isdisjoint(retain)

    base, ev = _cell(out, "base"), _cell(out, "ga/eval")
    ga = results["methods"]["ga"]
    # FQ per type is recomputed from the stored per-question verdicts.
    for qtype, ids in (
        ("SH", base["forget_ids"]),
        ("HS", [i for i in base["multi_hop_ids"] if i.startswith("HS")]),
    ):
        pt = ga["per_type"][qtype]
        assert pt["n"] == len(ids)
        acc_b = sum(base["correct"][i] is True for i in ids) / len(ids) if ids else None
        acc_u = sum(ev["correct"][i] is True for i in ids) / len(ids) if ids else None
        if not ids or acc_b == 0 or pt["base_at_chance"]:
            # no FQ where the base model does not know the type (fewer than 5 right; issue 25)
            assert pt["fq"]["value"] is None
        else:
            assert abs(pt["fq"]["value"] - (1 - acc_u / acc_b)) < 1e-9
            assert pt["fq"]["ci_low"] <= pt["fq"]["value"] <= pt["fq"]["ci_high"]
    # Every forget fact was answered correctly by the base model (that is how they were chosen).
    assert all(base["correct"][i] is True for i in base["forget_ids"])
    # RR = recovered / |S_suc| for single-hop.
    attack = _cell(out, "ga/attack-probab")
    s_suc_sh = [i for i in base["forget_ids"] if ev["correct"][i] is False]
    assert ga["s_suc"]["SH"] == len(s_suc_sh)
    rr = ga["attacks"]["probab"]["rr_SH"]
    if s_suc_sh:
        assert rr["n"] == len(s_suc_sh)
        assert (
            abs(rr["value"] - sum(attack["recovered"][i] is True for i in s_suc_sh) / len(s_suc_sh))
            < 1e-9
        )
        assert all(len(attack["responses"][i]) == 5 for i in s_suc_sh)
    else:
        assert rr["value"] is None

    # Resume: a rerun with the same options must not load the model, generate or train again.
    from leakres_cli.stages.pipeline import Benchmark

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    again = CliRunner().invoke(cli, [*ARGS, "--out", str(out)], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    rerun = json.loads((out / "results.json").read_text())
    assert rerun["methods"]["ga"]["per_type"] == ga["per_type"]
    assert rerun["methods"]["ga"]["attacks"]["probab"]["rr_SH"] == rr
