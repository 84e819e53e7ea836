"""Resolve once (issue 37 item 1): between ``run_benchmark`` and the first stage the run's
configuration enters each leakres_cli module once, the checks are one step (``config.resolve``),
and what it returns is final.

The walk is traced, not inferred: a profiler records every call into a leakres_cli function whose
arguments carry the configuration (a ``RunConfig``, a ``ResolvedRun``, or the pipeline holding
one), made from another module; the config's own methods (``self``) are not a visit. The run is
stopped when the pipeline calls its first stage (``build_questions``).
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest
from leakres_cli import run_benchmark
from leakres_cli.config.paper_settings import settings_for
from leakres_cli.config.resolve import ResolvedRun, resolve
from leakres_cli.config.run_config import RunConfig, preset_config
from leakres_cli.errors import LeakresError

SMALL = {"per_type": 4, "sh_pool": 16, "n_forget": 2, "n_retain": 1, "seed": 0}
SRC = Path(__file__).resolve().parents[1] / "src" / "leakres_cli"


class FirstStage(Exception):
    """Raised by the patched first stage: the walk ends there."""


def _carries_config(value: Any) -> bool:
    if isinstance(value, (RunConfig, ResolvedRun)):
        return True
    return isinstance(getattr(value, "cfg", None), RunConfig)


def config_walk(call) -> list[str]:
    """The leakres_cli modules (without the package prefix) entered with the configuration while
    ``call()`` runs, in order."""
    walk: list[str] = []

    def profile(frame, event, arg):  # sys.setprofile's signature
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("leakres_cli") or frame.f_code.co_name.startswith(("__", "<")):
            return
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back else ""
        if caller == module:
            return
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        values = [frame.f_locals.get(n) for n in names if n != "self"]
        host = frame.f_locals.get("self") if names and names[0] == "self" else None
        if not isinstance(host, RunConfig) and _carries_config(host):
            values.append(host)  # a method of the pipeline holding the config
        if any(_carries_config(v) for v in values):
            walk.append(module.removeprefix("leakres_cli."))

    sys.setprofile(profile)
    try:
        call()
    except FirstStage:
        pass
    finally:
        sys.setprofile(None)
    return walk


def test_the_config_enters_each_module_once_before_the_first_stage(tmp_path, monkeypatch):
    import leakres_cli.stages.pipeline as pipeline

    def first_stage(cfg):
        assert isinstance(cfg, RunConfig)
        raise FirstStage

    monkeypatch.setattr(pipeline, "build_questions", first_stage)
    cfg = preset_config("smoke", **SMALL)
    walk = config_walk(lambda: run_benchmark(cfg, tmp_path / "run", report=False))
    assert walk == [  # (the config's own methods, e.g. fingerprint_dict, are not visits)
        "api",
        "config.resolve",
        "config.run_config",  # fields and question types (kg-qgen's registry)
        "config.judges",  # which judges, which need an endpoint
        "config.preflight",  # names, engine, source and its size, judge URL and endpoint
        "config.run_checks",  # --base, attack budgets, BBH files
        "config.paper_settings",  # per-(method, model) settings
        "stages.pipeline",  # the resolved run, and nothing checked again
    ]
    assert len(walk) == len(set(walk))


def test_the_stages_import_no_check():
    """Structural: no stage module imports the checking modules (only the pipeline takes the
    resolved run, and it calls none of them on it)."""
    checks = {
        "leakres_cli.config.preflight",
        "leakres_cli.config.resolve",
        "leakres_cli.scale.grid",
    }
    for path in sorted((SRC / "stages").glob("*.py")):
        if path.name == "pipeline.py":  # imports ResolvedRun and settle (a bare RunConfig)
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not named & checks, f"{path.name} imports {named & checks}"


def test_a_resolved_run_is_final_and_fills_the_per_model_settings():
    model = "meta-llama/Llama-3.1-8B-Instruct"
    cfg = preset_config(
        "smoke", **SMALL, method_settings="paper", method_overrides={"ga": {"epochs": 1}}
    )
    cfg.model = model
    run = resolve(cfg, model_path="/nowhere", probe=False)
    assert run.config.method_overrides["ga"] == {**settings_for("ga", model), "epochs": 1}
    assert run.model_path == "/nowhere" and run.fingerprint == run.config.fingerprint_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.config.seed = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.model_path = "/elsewhere"  # type: ignore[misc]
    assert run.config == dataclasses.replace(cfg, method_overrides=run.config.method_overrides)
    assert cfg.method_overrides == {"ga": {"epochs": 1}}  # the caller's config is untouched


def test_resolve_refuses_before_any_work(tmp_path):
    with pytest.raises(LeakresError, match="unknown question type"):
        run_benchmark(RunConfig(types=("SH", "XX")), tmp_path / "run")
    with pytest.raises(LeakresError, match="--base must be one of"):
        run_benchmark(RunConfig(base="trained"), tmp_path / "run")
    assert not (tmp_path / "run").exists()
