"""`leakres run --executor ray`: the grid's cells as Ray tasks give the same numbers as in-process.

Real runs of the smoke preset (scaled down) on the CLI's default SmolLM2-135M-Instruct: once in
this process, once with every cell a Ray task on a local Ray instance started by leakres (Ray 2.x
has no local_mode any more). Needs the optional `ray` extra; without it the test is skipped and
says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from leakres_cli.main import cli

ray = pytest.importorskip(
    "ray", reason="not run: ray not installed (pip install 'leakres-cli[ray]')"
)

ARGS = ["run", "--quiet", "--n-forget", "4", "--n-retain", "4", "--per-type", "8", "--sh-pool", "24",
        "--seed", "0"]  # fmt: skip


def _payload(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


def test_ray_cells_give_the_in_process_numbers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(tmp_path / "cache"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # same as a 1-CPU Ray task (OMP_NUM_THREADS=1): same float sums
    try:
        local, remote = tmp_path / "local", tmp_path / "ray"
        first = CliRunner().invoke(cli, [*ARGS, "--out", str(local)], catch_exceptions=False)
        assert first.exit_code == 0, first.output
        from leakres_cli.stages.pipeline import Benchmark

        def boom(*args, **kwargs):
            raise AssertionError("the driver computed a cell: it should only collect")

        # Ray workers are other processes: these patches hold only in this (the driver) process
        for name in ("model", "answer", "unlearn"):
            monkeypatch.setattr(Benchmark, name, boom)
        second = CliRunner().invoke(
            cli, [*ARGS, "--out", str(remote), "--executor", "ray", "--ray-cpus", "2"],
            catch_exceptions=False,
        )  # fmt: skip
        assert second.exit_code == 0, second.output
    finally:
        torch.set_num_threads(threads)
    assert "Ray ran 2 cells: base, ga" in second.output
    a = json.loads((local / "results.json").read_text())
    b = json.loads((remote / "results.json").read_text())
    assert a["forget_facts"] == b["forget_facts"] and a["retain_facts"] == b["retain_facts"]
    ga_a, ga_b = a["methods"]["ga"], b["methods"]["ga"]
    for key in ("per_type", "fq_all_types", "fq_multi_hop", "retain", "utility", "s_suc",
                "attacks", "robustness"):  # fmt: skip
        assert ga_a[key] == ga_b[key], key
    assert ga_a["unlearn"]["loss_curve"] == ga_b["unlearn"]["loss_curve"]
    for cell in ("base", "ga/eval", "ga/attack-probab"):
        assert _payload(local, cell) == _payload(remote, cell), cell
