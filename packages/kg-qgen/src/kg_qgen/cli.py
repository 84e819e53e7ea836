"""``kg-qgen`` command line: ``build``, ``verify``, ``stats``, ``export``, ``review`` and ``score``.

Every option can also be set through an environment variable ``KG_QGEN_<COMMAND>_<OPTION>``
(click ``auto_envvar_prefix="KG_QGEN"``), e.g. ``KG_QGEN_BUILD_PER_TYPE=50``.

LLM hook: when the optional module ``kg_qgen.llm.cli`` exists it must provide
``llm_options(command) -> command`` (a click decorator adding ``--llm-*`` options, whose
parameter names start with ``llm_``) and ``from_cli(options: dict, seed: int) -> dict`` returning
any of ``generator`` (a QuestionGenerator), ``checks`` (list of Check) and ``source_kwargs``
(extra keyword arguments for the source loader, e.g. for ``text``).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from kg_qgen.cli_output import (
    echo_build_summary,
    echo_verification,
    refuse_failed_verification,
    save_and_say_what_stayed,
)
from kg_qgen.errors import KgQgenInputError
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.pipeline import build as build_dataset
from kg_qgen.pipeline import check_out_dir
from kg_qgen.prompt_form import DEFAULT_PROMPT_FORM, PROMPT_FORMS
from kg_qgen.qtypes import question_type_codes
from kg_qgen.records import read_records
from kg_qgen.sources.registry import available_sources, load_source
from kg_qgen.stats import dataset_stats
from kg_qgen.writable import check_writable_file as _check_writable_file

try:  # the LLM helper's options, when that part of the package is present
    _llm_cli: Any = importlib.import_module("kg_qgen.llm.cli")
except ImportError:
    _llm_cli = None


def _llm_options(f: Any) -> Any:
    return _llm_cli.llm_options(f) if _llm_cli is not None else f


def _parse_types(value: str) -> tuple[str, ...]:
    types = tuple(t.strip().upper() for t in value.replace(" ", ",").split(",") if t.strip())
    known = question_type_codes()
    unknown = [t for t in types if t not in known]
    if unknown or not types:
        raise click.BadParameter(
            f"unknown type(s) {unknown}; known: {', '.join(known)}", param_hint="--types"
        )
    return types


# Bounds of the numeric options, checked at parse time: far above any real build, low enough
# that no value overflows later (``--oversample 1e308`` once ended in an OverflowError traceback).
MAX_PER_TYPE = 1_000_000
MAX_OVERSAMPLE = 1000.0
# sources that need no --input (fictional: --input is an optional spec such as "small,seed=1")
NO_INPUT_SOURCES = frozenset({"builtin", "fictional"})

# where the source's facts come from, the same for build and verify (a verify reloads the source)
_INPUT = click.option(
    "--input", "input_path", type=str, default=None, help="File, URL or name (mquake)."
)
_RELATIONS_FILE = click.option(
    "--relations-file",
    type=click.Path(path_type=Path),
    default=None,
    help="Wikidata relation id -> label file (triples source).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kg-qgen")
def cli() -> None:
    """Turn a knowledge source into a balanced, verified multi-hop unlearning benchmark."""


@cli.command("build")
@click.option("--source", type=click.Choice(available_sources()), required=True, show_default=True)
@_INPUT
@click.option("--per-type", type=click.IntRange(1, MAX_PER_TYPE), default=100, show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), required=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--types", default=",".join(QUESTION_TYPES), show_default=True)
@_RELATIONS_FILE
@click.option(
    "--strict",
    is_flag=True,
    help="A relation without a label is an error (default: its questions are rejects).",
)
@click.option("--generator", default="template", show_default=True)
@click.option(
    "--oversample",
    type=click.FloatRange(0, MAX_OVERSAMPLE, min_open=True),
    default=3.0,
    show_default=True,
    help=f"Matches drawn per type = per-type x this (at most {MAX_OVERSAMPLE:g}).",
)
@click.option("--forget-fraction", type=click.FloatRange(0, 1), default=0.5, show_default=True)
@click.option(
    "--max-per-target", type=click.IntRange(1, MAX_PER_TYPE), default=2, show_default=True
)
@click.option(
    "--wording-draws",
    type=click.IntRange(1, 1000),
    default=16,
    show_default=True,
    help="Wordings drawn per kept question; the one sharing the fewest n-grams with the rest of "
    "the set is kept (template generator; 1 keeps each question's first draw).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace a previous kg-qgen build: only the files the build wrote; review.sqlite (kept, or "
    "set aside when its sampled questions changed), quality/ and any other file stay.",
)
@click.option(
    "--verify/--no-verify",
    default=True,
    show_default=True,
    help="Re-check the set (kg-qgen verify) before saving; a failing set is not saved.",
)
@_llm_options
def build_cmd(
    source: str,
    input_path: str | None,
    per_type: int,
    out_dir: Path,
    seed: int,
    types: str,
    relations_file: Path | None,
    strict: bool,
    generator: str,
    oversample: float,
    forget_fraction: float,
    max_per_target: int,
    wording_draws: int,
    overwrite: bool,
    verify: bool,
    **llm: Any,
) -> None:
    """Build a question set from a knowledge source."""
    from kg_qgen.match.index import MatchConfig

    type_list = _parse_types(types)
    check_out_dir(out_dir, overwrite)  # before any work: never replace what is not ours
    hooks: dict[str, Any] = {}
    if generator == "llm" and "llm_generate" in llm:
        llm["llm_generate"] = True  # --generator llm is --llm-generate
    if _llm_cli is not None:
        hooks = _llm_cli.from_cli(llm, seed) or {}
    kw: dict[str, Any] = dict(hooks.get("source_kwargs", {}))
    if source == "triples":
        kw.update(relations_file=relations_file, strict=strict)
    if input_path is None and source not in NO_INPUT_SOURCES:
        raise click.UsageError(f"--input is required for --source {source}")
    t0 = time.perf_counter()
    graph = load_source(source, input_path, **kw)
    result = build_dataset(
        graph,
        types=type_list,
        per_type=per_type,
        seed=seed,
        generator=hooks.get("generator") or generator,
        checks=hooks.get("checks"),
        oversample=oversample,
        forget_fraction=forget_fraction,
        match_config=MatchConfig(max_per_target=max_per_target),
        progress=True,
        strict=strict,
        verify=verify,
        wording_draws=wording_draws,
    )
    refuse_failed_verification(result.verification, out_dir)
    meta = {"source": {"name": source, "input": input_path, "graph": repr(graph)}}
    save_and_say_what_stayed(result, out_dir, overwrite, meta)
    elapsed = time.perf_counter() - t0
    echo_build_summary(result, graph, type_list, per_type, out_dir)
    click.echo(f"wrote {out_dir} in {elapsed:.1f}s")


@cli.command("verify")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--source", type=click.Choice(available_sources()), required=True)
@_INPUT
@_RELATIONS_FILE
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the JSON report [default: DIRECTORY/verify_report.json].",
)
@click.option("--show", type=click.IntRange(0, MAX_PER_TYPE), default=20, show_default=True)
def verify_cmd(
    directory: Path,
    source: str,
    input_path: str | None,
    relations_file: Path | None,
    report_path: Path | None,
    show: int,
) -> None:
    """Re-check a built question set against its knowledge source (exit 1 on any failure).

    Every question is re-derived from the source: schema, premises, relation labels, the logic
    of its type, leaks, style, duplicates; then the set checks (MT text-only classifier and
    spread, DS option rules). The report lists
    counts per type and every failing id with its check and reason.
    """
    from kg_qgen.verify.report import verify_records

    qpath = directory / "questions.jsonl"
    if not qpath.is_file():
        raise KgQgenInputError("no questions.jsonl (not a kg-qgen output folder?)", path=str(qpath))
    if input_path is None and source not in NO_INPUT_SOURCES:
        raise click.UsageError(f"--input is required for --source {source}")
    questions = read_records(qpath)
    if not questions:
        raise KgQgenInputError("no questions to verify (the file is empty)", path=str(qpath))
    out = report_path or directory / "verify_report.json"
    _check_writable_file(out, "--report")  # before the source is loaded and re-derived
    kw: dict[str, Any] = {}
    if source == "triples":
        kw["relations_file"] = relations_file
    graph = load_source(source, input_path, **kw)
    report = verify_records(questions, graph)
    try:
        out.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    except OSError as err:
        msg = f"cannot write the report: {err.strerror or err}"
        raise KgQgenInputError(msg, path=str(out)) from err
    echo_verification(report.to_dict(), show=show)
    click.echo(f"report: {out}")
    if not report.ok:
        sys.exit(1)


@cli.command("stats")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--sample",
    type=click.IntRange(2, MAX_PER_TYPE),
    default=500,
    show_default=True,
    help="Questions sampled for self-BLEU (Texygen definition, NLTK sentence BLEU).",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def stats_cmd(directory: Path, sample: int, seed: int, as_json: bool) -> None:
    """Counts per type, self-BLEU and answer entropy, vs the source's own questions."""
    qpath = directory / "questions.jsonl"
    if not qpath.is_file():
        raise KgQgenInputError("no questions.jsonl (not a kg-qgen output folder?)", path=str(qpath))
    questions = read_records(qpath, require=("type", "question", "answer"))
    report = {"generated": dataset_stats(questions, sample=sample, seed=seed)}
    spath = directory / "source_questions.jsonl"
    if spath.is_file():
        src = read_records(spath, require=("question", "answer"))
        for q in src:
            q.setdefault("type", "source")
        report["source"] = dataset_stats(src, sample=sample, seed=seed)["all"]
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(f"{'type':<8}{'n':>6}{'self-BLEU':>12}{'entropy(bits)':>15}")
    rows = [*report["generated"]["per_type"].items(), ("all", report["generated"]["all"])]
    if "source" in report:
        rows.append(("source", report["source"]))
    for name, s in rows:
        click.echo(
            f"{name:<8}{s['n']:>6}{_fmt(s['self_bleu']):>12}{_fmt(s['answer_entropy_bits']):>15}"
        )
    gen_all, src = report["generated"]["all"], report.get("source")
    if src and gen_all["self_bleu"] is not None and src["self_bleu"]:
        ratio = gen_all["self_bleu"] / src["self_bleu"]
        click.echo(
            f"self-BLEU ratio to the source's own questions: {_fmt(gen_all['self_bleu'])} / "
            f"{_fmt(src['self_bleu'])} = {ratio:.2f} (the paper's: 0.285 / 0.506 = 0.56)"
        )
    mp = report["generated"]["per_type"].get("MP")
    if mp and mp.get("rule_pairs"):
        spread = ", ".join(f"{k} {v}" for k, v in mp["rule_pairs"].items())
        click.echo(
            f"MP relation pairs (n={mp['n']}, answer entropy "
            f"{_fmt(mp['answer_entropy_bits'])} bits): {spread}"
        )
    click.echo(f"self-BLEU: {report['generated']['self_bleu_definition']}")


@cli.command("export")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["lm-eval", "hf"]), required=True)
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--task-prefix",
    default="kgqgen",
    show_default=True,
    help="lm-eval: task names are PREFIX_<type>, the group PREFIX.",
)
@click.option(
    "--max-gen-toks",
    type=click.IntRange(1, 32768),
    default=24,
    show_default=True,
    help="lm-eval: new tokens per answer (leakres' --max-new-tokens).",
)
@click.option(
    "--license",
    "license_id",
    default=None,
    help="hf: the card's licence id [default: from the source; 'other' for user input].",
)
@click.option("--overwrite", is_flag=True, help="Replace a previous export at OUT.")
@click.option(
    "--prompt-form",
    type=click.Choice(PROMPT_FORMS),
    default=DEFAULT_PROMPT_FORM,
    show_default=True,
    help="What is asked: the question and its type's answer-form instruction, or the bare question.",
)
@click.option(
    "--push-to-hub",
    "push_to_hub",
    default=None,
    metavar="REPO",
    help="hf: also upload the export and its card to the Hub dataset repository REPO ($HF_TOKEN).",
)
@click.option("--private", is_flag=True, help="With --push-to-hub: create REPO private.")
def export_cmd(
    directory: Path,
    fmt: str,
    out: Path,
    task_prefix: str,
    max_gen_toks: int,
    license_id: str | None,
    overwrite: bool,
    prompt_form: str,
    push_to_hub: str | None,
    private: bool,
) -> None:
    """Export a built set: an lm-evaluation-harness task folder, or a Hugging Face dataset."""
    from kg_qgen.export import export_hf, export_lm_eval
    from kg_qgen.hub import hub_token, push_folder

    if push_to_hub is not None:
        if fmt != "hf":
            raise KgQgenInputError("--push-to-hub uploads a dataset: it needs --format hf")
        hub_token()  # no token (or offline): refused before the export is written

    if fmt == "lm-eval":
        path = export_lm_eval(
            directory,
            out,
            task_prefix=task_prefix,
            max_gen_toks=max_gen_toks,
            overwrite=overwrite,
            prompt_form=prompt_form,
        )
        click.echo(f"wrote {path} (lm-eval run --include_path {path} --tasks {task_prefix})")
    else:
        path = export_hf(
            directory, out, license_id=license_id, overwrite=overwrite, prompt_form=prompt_form
        )
        click.echo(f"wrote {path} (datasets.load_from_disk)")
        if push_to_hub is not None:
            url = push_folder(path, push_to_hub, repo_type="dataset", private=private)
            click.echo(f"pushed {path} to {url} (datasets.load_dataset('{push_to_hub}', TYPE))")


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


# kept for code that reads JSONL through the CLI module: one reader for every command
_read_jsonl = read_records


# Commands that live in their own subpackages (their heavy imports stay inside the commands).
from kg_qgen.quality.cli import score_command  # noqa: E402
from kg_qgen.review.cli import review_command  # noqa: E402

cli.add_command(review_command)
cli.add_command(score_command)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input -> one line on stderr and exit code 2, no traceback."""
    try:
        cli.main(
            args=argv, prog_name="kg-qgen", auto_envvar_prefix="KG_QGEN", standalone_mode=False
        )
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.UsageError as err:  # a bad option or value: one line, like every input error
        click.echo(f"kg-qgen: error: {err.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as err:
        err.show()
        sys.exit(err.exit_code)
    except (KgQgenInputError, FileExistsError, KeyError, ValueError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        click.echo(f"kg-qgen: error: {msg}", err=True)
        sys.exit(2)
    except (
        OSError
    ) as err:  # a file the user named cannot be read or written: one line, no traceback
        where = f"{err.filename}: " if err.filename else ""
        click.echo(f"kg-qgen: error: {where}{err.strerror or err}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
