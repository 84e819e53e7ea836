"""`leakres tune`: learning rate x epochs (x TV alpha) search for one method on a validation split."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from leakres_cli.config.options import config_options, config_values
from leakres_cli.config.run_config import PRESETS, TEACH_FIELDS, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.outputs.write import seed_everything as _seed_everything
from leakres_cli.scale.store import check_writable_dir, write_json_atomic, write_text_atomic
from leakres_cli.tune.tuning import RULE, VALIDATION_RULE

#: RunConfig fields that are options of `leakres tune` (the run whose forget facts it excludes)
TUNE_FIELDS = (
    "model",
    "source",
    "source_path",
    "types",
    "per_type",
    "sh_pool",
    "n_forget",
    "n_retain",
    "seed",
    "judge",
    "judge_model",
    "judge_base_url",
    "judge_timeout",
    "judge_retries",
    "batch_size",
    "max_new_tokens",
    "prompt_form",
    "bootstrap",
    "bbh_tasks",
    "bbh_limit",
    "data_dir",
    "dtype",
    "allow_fewer",
    # theta_p: a search under --base tuned|taught runs on the taught model, as the run does
    *TEACH_FIELDS,
)
# Where a field means something narrower here than in `leakres run`.
TUNE_HELP = {
    "types": "Question types of the run (they pick its forget facts).",
    "n_forget": "The run's forget facts (excluded).",
    "n_retain": "The run's retain facts.",
    "bbh_tasks": "BBH tasks: the rule then also needs BBH >= 90% of the base.",
}


def _floats(values: tuple[str, ...], flag: str) -> tuple[float, ...] | None:
    """Repeatable and/or comma-separated numbers; None when the option was not given."""
    if not values:
        return None
    out = []
    for value in values:
        for part in value.split(","):
            if not part.strip():
                continue
            try:
                out.append(float(part))
            except ValueError:
                raise LeakresError(f"{flag}: '{part.strip()}' is not a number") from None
    return tuple(out)


@click.command("tune")
@click.option("--method", required=True, help="Unlearning method to tune (see `leakres list`).")
@click.option(
    "--preset",
    default="smoke",
    show_default=True,
    help=f"Base configuration, as for `leakres run`: {', '.join(PRESETS)}.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leakres-tune"),
    show_default=True,
    help="Search directory: cells/ (base model), METHOD/trials/ (one cell directory per trial), "
    "METHOD/tune.json, tune.md and settings.json.",
)
@click.option(
    "--lr",
    "lrs",
    multiple=True,
    metavar="LR[,LR...]",
    help="Learning rates (repeatable or comma list) [unlearn-zoo's size-tier default x 0.5, 1, 2].",
)
@click.option(
    "--epochs",
    "epochs",
    multiple=True,
    metavar="E[,E...]",
    help="Epochs (repeatable or comma list) [ceil(default / 2) and the default].",
)
@click.option(
    "--tv-alpha",
    "tv_alphas",
    multiple=True,
    metavar="A[,A...]",
    help="TV's task-vector scale alpha (tv only) [1, 4, as the paper searched].",
)
# Forget facts default to the run's --n-forget: unlearning is sized in epochs, so a smaller forget
# set means fewer optimizer steps per epoch and picks that overshoot on the run (16 validation
# facts chose GA lr 4e-5 x 2, which kept 16% of the retain facts at the default run's 48). The rest
# of the knowledge base is asked when the run's pool has too few known facts beside the run's.
@click.option(
    "--val-forget",
    type=click.IntRange(max=100_000),  # >= 1: checked below, with --val-retain
    default=None,
    help="Validation forget facts [the run's --n-forget, so that a trial takes the run's steps "
    "per epoch].",
)
@click.option(
    "--val-retain",
    type=click.IntRange(max=100_000),
    default=32,
    show_default=True,
    help="Validation retain facts.",
)
@config_options(TUNE_FIELDS, help_texts=TUNE_HELP)
@click.option(
    "--settings-out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the chosen settings [OUT/METHOD/settings.json].",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
def tune_command(
    method: str,
    preset: str,
    out_dir: Path,
    lrs: tuple[str, ...],
    epochs: tuple[str, ...],
    tv_alphas: tuple[str, ...],
    val_forget: int | None,
    val_retain: int,
    settings_out: Path | None,
    quiet: bool,
    **options: Any,
) -> None:
    """Search lr x epochs (x TV alpha) for METHOD on MODEL; write the chosen settings for
    `leakres run --method-config FILE`.

    Validation facts: {validation}.

    Selection: {rule}.

    Every trial is a cell directory under --out: Ctrl-C and rerun continue where it stopped.
    """
    method, grid = _method_and_grid(method, lrs, epochs, tv_alphas)
    cfg = preset_config(preset, **config_values(options, TUNE_FIELDS))
    if val_forget is None:
        val_forget = cfg.n_forget
    if val_forget < 1 or val_retain < 1:
        raise LeakresError("--val-forget and --val-retain must be at least 1")
    cfg.models = ()
    _check_grid(grid)
    import dataclasses

    from leakres_cli.config.preflight import check as preflight

    # The same checks as `leakres run`, at the validation sizes, before --out is created.
    preflight(
        dataclasses.replace(cfg, n_forget=val_forget, n_retain=val_retain),
        {name: options.get(name) for name in ("judge_model", "judge_base_url", "bbh_limit")},
    )
    check_writable_dir(out_dir)
    from leakres_cli.models.catalog import check_model

    check_model(cfg.model)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    _seed_everything(cfg.seed)

    from leakres_cli.tune.tuning import TuneSearch

    search = TuneSearch(
        cfg, method, out_dir, n_val_forget=val_forget, n_val_retain=val_retain,
        grid_values=grid, progress=not quiet,
    )  # fmt: skip
    result = search.run()
    _write_result(result, method, out_dir / method, settings_out)


tune_command.help = (tune_command.help or "").format(validation=VALIDATION_RULE, rule=RULE)


def _method_and_grid(
    method: str, lrs: tuple[str, ...], epochs: tuple[str, ...], tv_alphas: tuple[str, ...]
) -> tuple[str, dict[str, tuple[float, ...] | None]]:
    """The method's canonical name (an unknown one is a one-line error) and the given grid axes
    (None: the default axis)."""
    from unlearn_zoo import get_unlearner

    try:
        get_unlearner(method)
    except (KeyError, ValueError) as exc:
        raise LeakresError(str(exc).strip("'\"")) from exc
    from leakres_cli.config.paths import check_name

    method = check_name(method.strip().lower(), "--method")  # it names OUT/<method>/
    alphas = _floats(tv_alphas, "--tv-alpha")
    if alphas is not None and method != "tv":
        raise LeakresError(f"--tv-alpha applies to tv only, not to '{method}'")
    return method, {
        "lr": _floats(lrs, "--lr"),
        "epochs": _floats(epochs, "--epochs"),
        "alpha": alphas,
    }


#: the largest value each grid axis takes (finite; --epochs 1e308 would overflow later)
GRID_MAX = {"lr": 1.0, "epochs": 1000, "alpha": 1000.0}


def _check_grid(grid: dict[str, tuple[float, ...] | None]) -> None:
    """A given grid axis is neither empty nor holds a value <= 0 (one-line error naming the flag)."""
    for name, values in grid.items():
        flag = "--tv-alpha" if name == "alpha" else f"--{name}"
        if values == ():
            raise LeakresError(f"{flag}: the grid is empty; give at least one value")
        for value in values or ():
            if not value > 0:
                raise LeakresError(f"{flag}: {value:g} is not a positive number")
            if not value <= GRID_MAX[name]:  # inf, or a value no run could mean (1e308 epochs)
                raise LeakresError(f"{flag}: {value:g} is above {GRID_MAX[name]:g}")


def _write_result(
    result: dict[str, Any], method: str, method_dir: Path, settings_out: Path | None
) -> None:
    """tune.json, tune.md and the settings file (none, and an error, when no trial forgot)."""
    from leakres_cli.tune.tuning import floor_text, relative_text, render_markdown, settings_file

    write_json_atomic(method_dir / "tune.json", result)
    text = render_markdown(result)
    write_text_atomic(method_dir / "tune.md", text)
    click.echo(text)
    if result["chosen"] is None:
        raise LeakresError(
            f"no trial of {len(result['trials'])} forgot any validation forget fact (SH FQ > 0); "
            f"the search table is in {method_dir / 'tune.json'}; try larger --lr/--epochs values"
        )
    target = settings_out or method_dir / "settings.json"
    write_json_atomic(target, settings_file(result))
    if not result["floor_met"]:
        click.echo(
            f"warning: no trial met the floor ({floor_text(result)}){relative_text(result)}; "
            f"{result['chosen']['key']} chosen by the fallback, floor_met: false in {target}"
        )
    click.echo(f"Wrote {method_dir / 'tune.json'}, {method_dir / 'tune.md'} and {target}")
    click.echo(f"Use it: leakres run --methods {method} --method-config {target}")
