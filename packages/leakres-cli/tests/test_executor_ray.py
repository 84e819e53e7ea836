"""`leakres run --executor ray`: the grid's cells as Ray tasks give the same numbers as in-process.

Real runs of the smoke preset (scaled down) on the CLI's default SmolLM2-135M-Instruct: once in
this process (the session's shared ``tiny_real_run``, read only; it also drew a Probab ladder,
which is run control and changes none of the cells compared here), once with every cell a Ray task
on a local Ray instance started by leakres (Ray 2.x has no local_mode any more). Needs the
optional `ray` extra; without it the test is skipped and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from conftest import TINY_REAL_ARGS
from leakres_cli.main import cli

ray = pytest.importorskip(
    "ray", reason="not run: ray not installed (pip install 'leakres-cli[ray]')"
)

ARGS = TINY_REAL_ARGS  # the in-process run is the shared fixture's


def _payload(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())["payload"]


def test_ray_cells_give_the_in_process_numbers(
    tmp_path: Path, monkeypatch, model_cache: Path, tiny_real_run: Path
) -> None:
    monkeypatch.setenv("LEAKRES_CACHE_DIR", str(model_cache))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # same as a 1-CPU Ray task (OMP_NUM_THREADS=1): same float sums
    try:
        local, remote = tiny_real_run, tmp_path / "ray"  # local: run in this process, read only
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
