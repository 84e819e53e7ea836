"""`leakres eval`'s run configuration: which run options it takes and the :class:`RunConfig` they make.

:data:`EVAL_FIELDS` are the RunConfig fields that mean the same in ``eval`` as in ``run`` (no
``--methods``, ``--n-forget``, ``--model``: the one method is the supplied model's label, the forget
size is the number of given facts, the model is ``--base``). :func:`eval_run_config` builds the
configuration from the command's parsed options; :func:`build_eval_config` is its core (the smoke
preset's defaults, the options, attack ``--set``). An eval's configuration is not
:func:`~leakres_cli.config.resolve.resolve`\\ d (its method is no unlearn-zoo name, so the
per-method settings do not apply): the pipeline ``settle``\\ s it when the run starts, and the names
are checked by :func:`~leakres_cli.config.preflight.validate_names` with no methods.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from leakres_cli.config.overrides import parse_overrides
from leakres_cli.config.preflight import validate_names
from leakres_cli.config.run_config import RunConfig, preset_config

#: RunConfig fields that mean the same in `eval` as in `run` (no --methods, --n-forget, --model)
EVAL_FIELDS = (
    "source",
    "source_path",
    "types",
    "attacks",
    "n_retain",
    "sh_pool",
    "judge",
    "judge_model",
    "judge_base_url",
    "judge_timeout",
    "judge_retries",
    "seed",
    "seeds",
    "batch_size",
    "max_new_tokens",
    "prompt_form",
    "bootstrap",
    "bbh_tasks",
    "bbh_limit",
    "bbh_cot",
    "data_dir",
    "allow_fewer",
    "engine",
    "engine_cmd",
    "engine_prompts",
    "dtype",
)


def eval_run_config(
    params: dict[str, Any], label: str, n_forget: int, n_retain: int, *, validate: bool = True
) -> RunConfig:
    """The run configuration of parsed `leakres eval` options: ``--base`` is the model, ``label``
    the one method, ``n_forget`` the forget size; ``n_retain`` (the given retain facts) replaces
    ``--n-retain`` when not 0. ``validate``: attack and judge names checked now."""
    from leakres_cli.config.options import config_values

    options = config_values(params, EVAL_FIELDS)
    options.update(model=params["base"], methods=(label,), n_forget=n_forget)
    if n_retain:
        options["n_retain"] = n_retain
    return build_eval_config(options, tuple(params["overrides"] or ()), validate=validate)


def build_eval_config(
    options: dict[str, Any], overrides: tuple[str, ...], *, validate: bool = True
) -> RunConfig:
    """The run configuration of an eval: the smoke preset's defaults, the options, attack --set;
    attacks and judges validated as in `run` (the one method is the supplied model's label, no
    unlearn-zoo name)."""
    cfg = preset_config("smoke", **options)
    cfg.models = ()
    _, attack_over = parse_overrides(overrides, (), cfg.attacks)
    cfg.attack_overrides = {a: attack_over[a] for a in sorted(attack_over)}
    if validate:
        validate_names(dataclasses.replace(cfg, methods=()))
    return cfg
