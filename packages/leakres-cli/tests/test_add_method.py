"""Adding a method to a finished run reuses every cell it has (scale/store.py ``cell_keys``):
the cells' key leaves out the list of methods, and cells written before (keyed on the whole
config, methods included) are still read, by the same run and by one with more methods.

The pipeline runs for real on kg-qgen's built-in facts with the alias judge; the models are
test_controls_switch.py's scripted stand-ins (no model is loaded).
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from leakres_cli.config.run_config import RunConfig
from leakres_cli.main import cli
from leakres_cli.models.engines import GenerationRouter
from leakres_cli.scale.store import cell_keys, fingerprint
from leakres_cli.stages.pipeline import Benchmark
from test_controls_switch import ARGS, FINGERPRINT_BEFORE, _script

NO_METHODS = [a for a in ARGS if a not in ("--methods", "ga")]


def _run(out: Path, methods: str) -> dict:
    args = [*NO_METHODS, "--methods", methods, "--out", str(out)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text())


def _spy(monkeypatch) -> list[str]:
    """The methods unlearned and the attacks run from now on (each a recomputed cell)."""
    done: list[str] = []
    unlearn, attack = Benchmark.unlearn, GenerationRouter.run_attack

    def spy_unlearn(self, method, forget, retain):
        done.append(f"unlearn {method}")
        return unlearn(self, method, forget, retain)

    def spy_attack(self, attack_obj, model, tokenizer, targets, **kwargs):
        done.append(f"attack {attack_obj.config.num_samples}x{len(targets)}")
        return attack(self, attack_obj, model, tokenizer, targets, **kwargs)

    monkeypatch.setattr(Benchmark, "unlearn", spy_unlearn)
    monkeypatch.setattr(GenerationRouter, "run_attack", spy_attack)
    return done


def test_cell_keys_leave_out_the_methods_and_keep_every_earlier_key() -> None:
    cfg = RunConfig().fingerprint_dict()
    key, earlier = cell_keys(cfg)
    assert key == cell_keys({**cfg, "methods": ["npo", "ga"]})[0]
    assert earlier == (FINGERPRINT_BEFORE,)  # one method: the key every earlier run of it had
    key3, earlier3 = cell_keys({**cfg, "methods": ["ga", "npo", "rmu"]})
    assert key3 == key and len(earlier3) == 7  # every order-kept subsequence: 2**3 - 1
    assert FINGERPRINT_BEFORE in earlier3
    assert fingerprint({**cfg, "methods": ["ga", "rmu"]}) in earlier3
    assert fingerprint({**cfg, "methods": ["rmu", "ga"]}) not in earlier3  # another run's order
    assert cell_keys({**cfg, "seed": 1})[0] != key  # every other field still keys the cells


def test_adding_a_method_reuses_the_finished_runs_cells(tmp_path, monkeypatch) -> None:
    _script(monkeypatch, [])
    out = tmp_path / "run"
    first = _run(out, "ga")
    done = _spy(monkeypatch)
    both = _run(out, "ga,npo")
    assert [d for d in done if d.startswith("unlearn")] == ["unlearn npo"]
    assert len(done) == 3  # npo's unlearning, its attack and its control: nothing of ga's again
    assert list(both["methods"]) == ["ga", "npo"]
    assert both["methods"]["ga"]["attacks"] == first["methods"]["ga"]["attacks"]
    assert both["methods"]["ga"]["per_type"] == first["methods"]["ga"]["per_type"]
    assert both["config"]["methods"] == ["ga", "npo"]  # results.json still records the list
    assert "comparisons" in both  # and the pair is now compared


def test_cells_of_an_earlier_key_are_reused_not_recomputed(tmp_path, monkeypatch) -> None:
    """A run directory written before the key left out the methods (its cells carry the key of
    the whole config) resumes, and can be extended, without recomputing a cell."""
    _script(monkeypatch, [])
    out = tmp_path / "run"
    first = _run(out, "ga")
    legacy = fingerprint(json.loads((out / "results.json").read_text())["config"])
    for path in (out / "cells").rglob("*.json"):
        cell = json.loads(path.read_text())
        cell["config_fingerprint"] = legacy  # as an earlier leakres wrote it
        path.write_text(json.dumps(cell))
    done = _spy(monkeypatch)
    again = _run(out, "ga")
    assert done == [] and again["methods"]["ga"]["per_type"] == first["methods"]["ga"]["per_type"]
    _run(out, "ga,npo")
    assert [d for d in done if d.startswith("unlearn")] == ["unlearn npo"]
    # the report reads the earlier cells too (no "written by another configuration" warning)
    result = CliRunner().invoke(cli, ["report", str(out), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0 and "another configuration" not in result.output
