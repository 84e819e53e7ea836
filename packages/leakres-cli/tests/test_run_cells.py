"""`leakres run --cell ID`: cells of one grid run as separate invocations into one run directory.

Real run (the CLI's default SmolLM2-135M-Instruct, built-in facts, GA, Probab; small sizes): the
`base` cell, then the `ga` cell (by its index, as a SLURM array task would pass it), then a run
without --cell, which must find every cell finished (no model load, no generation, no training)
and write results.json from them.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.stages.pipeline import Benchmark

ARGS = ["run", "--quiet", "--n-forget", "4", "--n-retain", "4", "--per-type", "8", "--sh-pool", "24",
        "--seed", "0"]  # fmt: skip


def _invoke(args: list[str]):
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_cells_run_separately_then_collect(tmp_path: Path, monkeypatch, model_cache: Path) -> None:
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(model_cache))  # converted once per session
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a shared 2-core CPU: a second thread mostly spin-waits
    out = tmp_path / "run"
    try:
        first = _invoke([*ARGS, "--out", str(out), "--cell", "base"])
        assert "Cell base done" in first.output
        cells = out / "cells"
        assert (cells / "base.json").is_file() and not (cells / "ga").exists()
        assert not (out / "results.json").exists()

        base_before = (cells / "base.json").read_text()
        _invoke([*ARGS, "--out", str(out), "--cell", "1"])  # index 1 = ga
        assert (cells / "base.json").read_text() == base_before  # not recomputed
        assert (cells / "ga" / "eval.json").is_file()
        assert (cells / "ga" / "attack-probab.json").is_file()
        fingerprints = {
            json.loads(p.read_text())["config_fingerprint"] for p in cells.rglob("*.json")
        }
        assert len(fingerprints) == 1  # every cell under the whole grid's fingerprint
    finally:
        torch.set_num_threads(threads)

    def boom(*args, **kwargs):
        raise AssertionError("a finished cell was recomputed")

    for name in ("model", "answer", "unlearn"):
        monkeypatch.setattr(Benchmark, name, boom)
    _invoke([*ARGS, "--out", str(out)])
    results = json.loads((out / "results.json").read_text())
    assert list(results["methods"]) == ["ga"]
    ga_eval = json.loads((cells / "ga" / "eval.json").read_text())["payload"]
    base = json.loads((cells / "base.json").read_text())["payload"]
    forget = base["forget_ids"]
    acc_u = sum(ga_eval["correct"][i] is True for i in forget) / len(forget)
    assert results["methods"]["ga"]["per_type"]["SH"]["acc_unlearned"]["value"] == acc_u
    assert results["engine"]["engine"] == "local"
