"""Resolve once: a :class:`RunConfig` becomes one immutable :class:`ResolvedRun` before any model
work (issue 37 item 1).

:func:`resolve` (one model) and :func:`resolve_grid` (every model of a grid) check every name, file,
endpoint, size and setting, fill the per-(method, model) settings, and visit each module that
reads the configuration once, in this order:

1. ``run_config.check_fields``: question types (kg-qgen's registry), sizes, prompt form, SH first;
2. ``judges.judge_setup``: the judges, and which need an endpoint and whether it is reachable;
3. ``preflight.check_run``: method/attack/judge names, engine, dtype, the knowledge source and its
   size, the judge URL and endpoint (one test request unless ``probe`` is off);
4. ``run_checks.check_settings``: ``--base``, the attacks' token budget, BBH's data files;
5. ``paper_settings.check_grid_settings``: each grid model's method settings (the shipped table
   under ``--set``), checked with unlearn-zoo;
6. ``models.catalog``: each model's path.

What comes after (``run_benchmark``, the pipeline, its stages) takes the resolved run and checks
nothing again. :func:`settle` is the light form the pipeline applies to a bare ``RunConfig`` (tests,
``leakres tune``, ``leakres eval``, a grid cell): only the checks the pipeline always made when a
run started, nothing that needs the network except the judges' endpoint check at the run's start.

May import: ``config``'s other modules and ``models.catalog``; never ``scale``, ``stages``,
``outputs`` nor ``commands`` (the pipeline imports this module).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from leakres_cli.config.judges import JudgeSetup
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError


class FrozenRunConfig(RunConfig):
    """A :class:`RunConfig` whose fields cannot be reassigned once built (its dicts are a private
    deep copy); ``dataclasses.replace`` derives another frozen one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise dataclasses.FrozenInstanceError(f"a resolved run's config is final: {name}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunConfig):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # as RunConfig's: mutable fields inside


def freeze(cfg: RunConfig) -> FrozenRunConfig:
    """A frozen deep copy of ``cfg``."""
    if isinstance(cfg, FrozenRunConfig):
        return cfg
    values = {f.name: copy.deepcopy(getattr(cfg, f.name)) for f in dataclasses.fields(RunConfig)}
    return FrozenRunConfig(**values)


@dataclass(frozen=True)
class ResolvedRun:
    """One model's run, resolved: what the pipeline and its stages take instead of options.

    Attributes:
        config: the final configuration (frozen): SH first, the model's method settings filled.
        fingerprint: ``config.fingerprint_dict()``, the key of the run's cells.
        judges: the judges, primary first, and those that need an endpoint.
        bbh: where BBH is read from (results.json's ``bbh``), None when BBH is off.
        model_path: the model's resolved path (None: :func:`settle`d, the pipeline loads it).
        endpoints_checked: the endpoint judges answered their test request already (``resolve``
            with ``probe``); otherwise the pipeline asks once when the run starts.
    """

    config: FrozenRunConfig
    fingerprint: dict[str, Any]
    judges: JudgeSetup
    bbh: dict[str, Any] | None
    model_path: str | None
    endpoints_checked: bool


def resolve_grid(
    config: RunConfig,
    *,
    given: dict[str, Any] | None = None,
    probe: bool = True,
    check_models: bool = False,
    model_paths: dict[str, str] | None = None,
) -> dict[str, ResolvedRun]:
    """Every model of ``config``'s grid resolved (module docstring), or a one-line LeakresError.

    Args:
        config: the run configuration (a preset's, the options on top).
        given: option name -> the value the user gave (None: not given), for the options that
            the combination makes pointless (``preflight.ignored_options``).
        probe: send each endpoint judge its test request (``leakres plan --offline`` does not).
        check_models: ask whether a Hub id exists (``catalog.check_model``, as ``leakres run``
            does) instead of only resolving the name (``catalog.resolve_model``).
        model_paths: the models' paths, when the caller has them (a resumed run's record).
    """
    from leakres_cli.config.judges import judge_setup
    from leakres_cli.config.paper_settings import check_grid_settings
    from leakres_cli.config.preflight import check_run
    from leakres_cli.config.run_checks import check_settings
    from leakres_cli.config.run_config import check_fields

    cfg = check_fields(config)
    judges = judge_setup(cfg)
    check_run(cfg, judges, given or {}, probe=probe)
    bbh = check_settings(cfg)
    settings = check_grid_settings(cfg)
    paths = model_paths or _model_paths(list(settings), check_models)
    out = {}
    for model, overrides in settings.items():
        final = freeze(dataclasses.replace(cfg, model=model, method_overrides=overrides))
        out[model] = ResolvedRun(
            final, final.fingerprint_dict(), judges, bbh, paths[model], endpoints_checked=probe
        )
    return out


def resolve(config: RunConfig, **kwargs: Any) -> ResolvedRun:
    """The one model of ``config`` resolved (:func:`resolve_grid`'s arguments; ``model_path``:
    the model's path when the caller has it)."""
    if len(config.models) > 1:
        raise LeakresError(
            f"a resolved run is one model; config.models has {len(config.models)} (use "
            "resolve_grid, as `leakres run` does)"
        )
    model_path = kwargs.pop("model_path", None)
    model = config.models[0] if config.models else config.model
    paths = {model: model_path} if model_path is not None else None
    return next(iter(resolve_grid(config, model_paths=paths, **kwargs).values()))


def settle(config: RunConfig, model_path: str | None = None) -> ResolvedRun:
    """``config`` as it stands, with only the checks the pipeline always made when a run started
    (``run_checks``); the judges' endpoints are left to the run's start (``endpoints_checked``
    False). What :class:`~leakres_cli.stages.pipeline.Benchmark` makes of a bare ``RunConfig``."""
    from leakres_cli.config.judges import judge_setup
    from leakres_cli.config.run_checks import check_settings

    bbh = check_settings(config)
    final = freeze(config)
    return ResolvedRun(final, final.fingerprint_dict(), judge_setup(final), bbh, model_path, False)


def _model_paths(models: list[str], check: bool) -> dict[str, str]:
    from leakres_cli.models.catalog import check_model, resolve_model

    return {name: (check_model(name) if check else resolve_model(name)) for name in models}
