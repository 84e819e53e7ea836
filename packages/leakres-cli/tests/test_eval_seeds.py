"""``leakres eval --seeds 0,1`` on the real SmolLM2-135M-Instruct and the built-in facts (the GA
model a tiny ``leakres run --save-models`` trains; 6 forget facts, Probab with 10 samples): the supplied model's
greedy evaluation is one cell shared by the seeds, the attack's sampling reruns per seed, the
``seeds`` block's mean and standard deviation are those of its per-seed values, seed 0 is a
plain eval's, and a rerun (or one with one more seed) recomputes nothing it has (issue 38 item 2).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.models.external import ExternalBenchmark
from leakres_cli.outputs.schema import validate_results
from test_eval_byom import COMMON, _eval_args
from test_seeds_run import _static

#: 6 forget facts (a type needs 5 known for an FQ, and RR on it), one GA epoch: 4 of
#: them forgotten, and Probab's 10 samples at 0.8 recover 2 at seed 0, 1 at seed 1 (measured)
RUN = ["run", *COMMON, "--per-type", "6", "--n-forget", "6", "--n-retain", "3", "--methods", "ga",
       "--set", "ga.lr=1e-4", "--set", "ga.epochs=1", "--save-models"]  # fmt: skip
EVAL = ("--label", "ga", "--set", "probab.num_samples=10")


def _invoke(args: list[str], **env: str):
    return CliRunner().invoke(cli, args, env=env or None, catch_exceptions=False)


def _cell(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


def _cell_files(out: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(out)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(out.rglob("cells/**/*.json"))
    }


@pytest.fixture(scope="module")
def evals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The saved run, a plain eval of its GA model and the same eval with --seeds 0,1."""
    root = tmp_path_factory.mktemp("eval-seeds")
    run = root / "run"
    result = _invoke([*RUN, "--out", str(run)])
    assert result.exit_code == 0, result.output
    plain, seeded = root / "plain", root / "seeded"
    models = run / "models"
    result = _invoke(_eval_args(run, models / "ga", plain, *EVAL))
    assert result.exit_code == 0, result.output
    # --seeds through its environment variable, as every eval option has one
    result = _invoke(_eval_args(run, models / "ga", seeded, *EVAL), LEAKRES_EVAL_SEEDS="0,1")  # fmt: skip
    assert result.exit_code == 0, result.output
    return {"run": run, "plain": plain, "seeded": seeded}


def test_each_seed_samples_anew_over_one_shared_evaluation(evals: dict[str, Path]) -> None:
    plain = json.loads((evals["plain"] / "results.json").read_text())
    got = json.loads((evals["seeded"] / "results.json").read_text())
    validate_results(got)
    assert "seeds" not in plain and "comparisons" not in got  # one method: nothing to pair
    block = got["seeds"]
    assert block["seeds"] == [0, 1] and block["reported_seed"] == 0 and block["data_seed"] == 0
    assert block["label"] == ExternalBenchmark.seeds_label  # what reruns: sampling, not the eval
    # seed 0 is the plain eval's: the tables and every other block (config too: which seeds
    # run is run control, not in the cells' fingerprint) are the same
    assert _static({k: v for k, v in got.items() if k != "seeds"}) == _static(plain)

    seeded = evals["seeded"]
    # the model's own greedy answers: one cell, --seed's, not one per seed
    assert (seeded / "cells" / "ga" / "eval.json").is_file()
    assert not (seeded / "seeds" / "1" / "cells" / "ga" / "eval.json").exists()
    # the attack's sampling reruns at seed 1, on the same S_suc (the shared evaluation's)
    zero = _cell(seeded, "ga/attack-probab")
    one = _cell(seeded / "seeds" / "1", "ga/attack-probab")
    assert zero["responses"] and set(zero["responses"]) == set(one["responses"])
    assert zero["responses"] != one["responses"]
    assert zero == _cell(evals["plain"], "ga/attack-probab")

    method = block["methods"]["ga"]
    rr = method["rr"]["probab"]
    assert (
        rr["all"]["per_seed"]["0"] == got["methods"]["ga"]["attacks"]["probab"]["rr_all"]["value"]
    )
    summaries = [*method["fq"].values(), method["fq_all_types"], method["robustness"],
                 *(rr[hop] for hop in ("SH", "MH", "all"))]  # fmt: skip
    for summary in summaries:
        values = [v for v in summary["per_seed"].values() if v is not None]
        assert set(summary["per_seed"]) == {"0", "1"} and summary["n_defined"] == len(values)
        if values:
            assert summary["mean"] == pytest.approx(statistics.mean(values))
            assert summary["std"] == pytest.approx(statistics.stdev(values))
    # sampling differs, and so does what it recovers: RR is not one value repeated
    assert rr["all"]["n_defined"] == 2 and rr["all"]["std"] > 0
    assert rr["all"]["per_seed"]["0"] != rr["all"]["per_seed"]["1"]
    # the evaluation is shared, so FQ is the same at both seeds (standard deviation 0)
    fq = method["fq_all_types"]
    assert fq["per_seed"]["0"] == fq["per_seed"]["1"] and fq["std"] == 0

    summary = (seeded / "summary.md").read_text()
    assert "## Seeds" in summary and "| RR single-hop | RR multi-hop | RR all |" in summary
    assert summary.count("## Bring your own model") == 1


def test_a_rerun_recomputes_nothing_and_a_new_seed_only_itself(
    evals: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    run, seeded = evals["run"], evals["seeded"]
    args = _eval_args(run, run / "models" / "ga", seeded, *EVAL)
    before = json.loads((seeded / "results.json").read_text())
    cells = _cell_files(seeded)

    def refuse(*_args, **_kwargs):
        raise AssertionError("a resumed eval must not load a model")

    with monkeypatch.context() as patch:
        patch.setattr(ExternalBenchmark, "model", refuse)
        patch.setattr(ExternalBenchmark, "unlearn", refuse)
        result = _invoke([*args, "--seeds", "0,1"])
        assert result.exit_code == 0, result.output
    assert _static(json.loads((seeded / "results.json").read_text())) == _static(before)
    assert _cell_files(seeded) == cells

    loaded: list[int] = []
    unlearn = ExternalBenchmark.unlearn

    def counted(self, method, forget, retain):
        loaded.append(self.cfg.seed)
        return unlearn(self, method, forget, retain)

    monkeypatch.setattr(ExternalBenchmark, "unlearn", counted)
    result = _invoke([*args, "--seeds", "0,1,2"])
    assert result.exit_code == 0, result.output
    assert loaded == [2]
    after = _cell_files(seeded)
    assert {k: v for k, v in after.items() if k in cells} == cells  # no cell rewritten
    assert all(k.startswith("seeds/2/") for k in set(after) - set(cells))
    got = json.loads((seeded / "results.json").read_text())
    rr = got["seeds"]["methods"]["ga"]["rr"]["probab"]["all"]["per_seed"]
    assert set(rr) == {"0", "1", "2"}
    assert {s: rr[s] for s in ("0", "1")} == before["seeds"]["methods"]["ga"]["rr"]["probab"]["all"]["per_seed"]  # fmt: skip
