"""Export a built question set to the evaluation tools people already use (``kg-qgen export``).

- :func:`export_lm_eval`: an lm-evaluation-harness task folder: one ``generate_until`` task per
  question type (``<prefix>_<type>``), a group ``<prefix>`` over them, ``questions.jsonl`` and the
  ``utils.py`` of :mod:`kg_qgen.lm_eval_task` (data loader, normalisation filter, metric).
- :func:`export_hf`: a ``datasets.DatasetDict`` (one split per type) saved with ``save_to_disk``,
  with a dataset card ``README.md`` (types, sizes, source, licence, generator, verification).

Both read only the set folder (``questions.jsonl``, ``manifest.json``, ``verify_report.json``)
and write atomically: everything goes to a temporary folder next to ``out`` first. Every exported
record carries its ``instruction`` (a set built before records had one gets its type's) and is
asked in the ``prompt_form`` given (:mod:`kg_qgen.prompt_form`): the lm-eval tasks' ``doc_to_text``
and the HF rows' ``prompt`` column.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg_qgen import lm_eval_task
from kg_qgen.errors import KgQgenInputError
from kg_qgen.lm_eval_yaml import group_yaml, task_yaml, type_name
from kg_qgen.pipeline import check_out_dir
from kg_qgen.prompt_form import DEFAULT_PROMPT_FORM, render_prompt, with_instructions
from kg_qgen.qtypes import get_question_type, question_type_codes
from kg_qgen.records import read_records

FORMATS = ("lm-eval", "hf")

#: licence of each built-in source's facts (the card's ``license``); other sources: ``--license``.
SOURCE_LICENSES = {
    "builtin": (
        "apache-2.0",
        "facts hand-written for kg-qgen, shipped under its Apache-2.0 licence",
    ),
    "mquake": ("mit", "MQuAKE (princeton-nlp/MQuAKE), MIT licence"),
}

#: the paper whose benchmark the questions serve (title from the paper text the project ships; the
#: text names no authors or venue, so the entry carries only what it says)
PAPER_TITLE = (
    "Leak-Resistant Unlearning: A New Benchmark for Evaluating Multi-Hop Reasoning Consistency "
    "and Recovery Robustness"
)
CITATION = (
    "@misc{leak_resistant_unlearning,\n"
    f"  title = {{{PAPER_TITLE}}},\n"
    "  note = {Benchmark questions generated with kg-qgen (leakres)}\n"
    "}"
)
#: fact files a set folder may carry beside its questions, per kind, first found wins: the facts a
#: leakres run chose (`leakres run --save-models` writes them), else kg-qgen's own seeded split
FACT_FILES = {
    "forget": ("forget.jsonl", "facts_forget.jsonl"),
    "retain": ("retain.jsonl", "facts_retain.jsonl"),
}
#: the pip line the exported lm-eval tasks need (the harness and its Hugging Face model backend)
LM_EVAL_INSTALL = 'pip install "lm-eval[hf]>=0.4.13"'


def citation_block() -> list[str]:
    """Markdown lines of the citation section (card and exported READMEs)."""
    return ["## Citation", "", "```bibtex", CITATION, "```", ""]


def fact_files(set_dir: str | Path) -> list[Path]:
    """The forget/retain fact files beside the set's questions: per kind the first of
    :data:`FACT_FILES` that exists (absent kinds left out)."""
    root = Path(set_dir)
    found = []
    for names in FACT_FILES.values():
        path = next((root / n for n in names if (root / n).is_file()), None)
        if path is not None:
            found.append(path)
    return found


def _fact_config(name: str) -> str:
    """``forget.jsonl`` and kg-qgen's ``facts_forget.jsonl`` are both the ``forget_facts`` config."""
    return name.removesuffix(".jsonl").removeprefix("facts_") + "_facts"


def _copy_facts(set_dir: str | Path, tmp: Path) -> list[str]:
    names = []
    for path in fact_files(set_dir):
        shutil.copyfile(path, tmp / path.name)
        names.append(path.name)
    return names


def _facts_line(names: list[str]) -> list[str]:
    if not names:
        return []
    listed = " and ".join(f"`{n}`" for n in names)
    return [
        f"The set's forget/retain facts are beside the questions: {listed} (one "
        '`{"subject", "relation", "object"}` per line, the `target` of their single-hop question; '
        "`leakres eval --forget forget.jsonl --retain retain.jsonl --questions .` measures a model "
        "on exactly them).",
        "",
    ]


def read_set(
    set_dir: str | Path,
) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
    """``(questions, manifest, verify_report or None)`` of a kg-qgen output folder."""
    root = Path(set_dir)
    qpath = root / "questions.jsonl"
    if not qpath.is_file():
        raise KgQgenInputError("no questions.jsonl (not a kg-qgen output folder?)", path=str(qpath))
    questions = read_records(qpath, require=("id", "type", "question", "answer"))
    questions = with_instructions(questions)  # an older set's records get their type's
    if not questions:
        raise KgQgenInputError("the set has no questions", path=str(qpath))
    manifest: dict[str, Any] = {}
    mpath = root / "manifest.json"
    if mpath.is_file():
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    vpath = root / "verify_report.json"
    report = json.loads(vpath.read_text(encoding="utf-8")) if vpath.is_file() else None
    return questions, manifest, report


def _types_of(questions: list[dict[str, Any]]) -> list[str]:
    present = {q["type"] for q in questions}
    return [t for t in question_type_codes() if t in present]


EXPORT_FORMAT = "kg-qgen-export/1"
EXPORT_MARKER = "export.json"


def _write_atomic(
    out: Path, overwrite: bool, fill: Callable[[Path], None], marker: dict[str, Any]
) -> Path:
    """Fill a temporary folder and rename it to ``out``. An existing ``out`` is replaced only with
    ``overwrite`` and when it is a previous export (its ``export.json`` says so): never anything
    else."""
    if out.exists() or out.is_symlink():
        if not overwrite:
            raise KgQgenInputError(
                "exists; pass --overwrite to replace a previous export", path=str(out)
            )
        previous = out / EXPORT_MARKER
        if out.is_symlink() or not (
            previous.is_file() and EXPORT_FORMAT in previous.read_text(encoding="utf-8")
        ):
            raise KgQgenInputError(
                "exists and is not a previous kg-qgen export (no export.json); refusing to "
                "replace it",
                path=str(out),
            )
    else:
        check_out_dir(out)  # the parent must be writable
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        fill(tmp)
        (tmp / EXPORT_MARKER).write_text(
            json.dumps({"format": EXPORT_FORMAT, **marker}, indent=2, ensure_ascii=False),
            encoding="utf-8",
        )
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def export_lm_eval(
    set_dir: str | Path,
    out: str | Path,
    *,
    task_prefix: str = "kgqgen",
    max_gen_toks: int = 24,
    overwrite: bool = False,
    prompt_form: str = DEFAULT_PROMPT_FORM,
) -> Path:
    """Write an lm-evaluation-harness task folder for the set (module docstring); returns it.

    Run it with ``lm-eval run --include_path OUT --tasks <prefix> --apply_chat_template ...``;
    ``max_gen_toks`` defaults to leakres' ``--max-new-tokens`` (24)."""
    if not task_prefix.replace("_", "").isalnum() or not task_prefix.islower():
        raise KgQgenInputError(
            f"task prefix {task_prefix!r} must be lower-case letters, digits and '_'"
        )
    questions, manifest, report = read_set(set_dir)
    types = _types_of(questions)
    counts = Counter(q["type"] for q in questions)

    def fill(tmp: Path) -> None:
        with (tmp / lm_eval_task.QUESTIONS_FILE).open("w", encoding="utf-8") as handle:
            for q in questions:
                handle.write(json.dumps(q, ensure_ascii=False) + "\n")
        shutil.copyfile(lm_eval_task.__file__, tmp / "utils.py")
        for t in types:
            (tmp / f"{task_prefix}_{t.lower()}.yaml").write_text(
                task_yaml(task_prefix, t, max_gen_toks, prompt_form), encoding="utf-8"
            )
        (tmp / f"_{task_prefix}.yaml").write_text(group_yaml(task_prefix, types), encoding="utf-8")
        facts = _copy_facts(set_dir, tmp)
        rows = "\n".join(
            f"| `{task_prefix}_{t.lower()}` | {t} | {type_name(t)} | {counts[t]} |" for t in types
        )
        (tmp / "README.md").write_text(
            f"# {task_prefix}: kg-qgen question set for lm-evaluation-harness\n\n"
            f"Exported by `kg-qgen export --format lm-eval` from a set built from "
            f"{_source_line(manifest)}; verification: {_verify_line(report)}.\n\n"
            "| task | type | name | questions |\n|---|---|---|---|\n"
            f"{rows}\n\n"
            + "".join(line + "\n" for line in _facts_line(facts))
            + f"```\n{LM_EVAL_INSTALL}   # the harness and its `hf` model backend\n"
            f"lm-eval run --include_path THIS_FOLDER --tasks {task_prefix} "
            "--model hf --model_args pretrained=MODEL --apply_chat_template\n```\n\n"
            f"Prompt form `{prompt_form}` (`kg-qgen export --prompt-form`: the question and "
            "its type's `instruction`, or the bare question); greedy decoding, EOS as the only stop, "
            f"{max_gen_toks} new tokens at most (leakres' decoding protocol). The metric "
            "`leak_match` is documented in `utils.py`: a simplified version of leak-metrics' "
            "alias judge (its normalisation, gold mention, wrong option, refusal; not its "
            "negation, alternative and committed-answer rules), so it can differ from "
            "leakres' accuracy; `leakres eval` gives the benchmark's numbers.\n\n"
            + "\n".join(citation_block()),
            encoding="utf-8",
        )

    marker = {"to": "lm-eval", "set": str(Path(set_dir)), "types": types, "prefix": task_prefix}
    marker["prompt_form"] = prompt_form
    return _write_atomic(Path(out), overwrite, fill, marker)


def _source_line(manifest: dict[str, Any]) -> str:
    source = manifest.get("source") or {}
    name = source.get("name", "an unknown source")
    return f"`{name}`" + (f" (`{source['input']}`)" if source.get("input") else "")


def _verify_line(report: dict[str, Any] | None) -> str:
    if report is None:
        return "no `verify_report.json` (not verified)"
    state = "passed" if report.get("ok") else "FAILED"
    return f"`kg-qgen verify` {state} on {report.get('n', '?')} questions"


def dataset_card(
    questions: list[dict[str, Any]],
    manifest: dict[str, Any],
    report: dict[str, Any] | None,
    license_id: str | None = None,
    facts: list[str] | None = None,
    prompt_form: str = DEFAULT_PROMPT_FORM,
) -> str:
    """The dataset card (``README.md`` with the hub's YAML header) of an HF export; ``facts``: the
    fact files exported beside the questions (:data:`FACT_FILES`), one config each."""
    source = (manifest.get("source") or {}).get("name")
    known = SOURCE_LICENSES.get(str(source))
    if license_id is None:
        license_id, license_note = known or ("other", "unknown: the facts come from user input")
    else:
        license_note = "set with --license"
    types = _types_of(questions)
    counts = Counter(q["type"] for q in questions)
    config = manifest.get("config") or {}
    header = _card_header(license_id, types, facts or [])
    table = "\n".join(
        f"| {t} | {type_name(t)} | {get_question_type(t).answer_kind} | {counts[t]} |"
        for t in types
    )
    fields = _card_fields(prompt_form)
    versions = manifest.get("versions") or {}
    body = [
        "# kg-qgen multi-hop unlearning question set",
        "",
        f"Built by kg-qgen {versions.get('kg-qgen', '?')} from {_source_line(manifest)}; "
        f"generator `{config.get('generator', '?')}`, seed {manifest.get('seed', '?')}, "
        f"{config.get('per_type', '?')} requested per type. Each question reaches one single-hop "
        "fact (`target`) that an unlearned model should no longer reveal.",
        "",
        "| split | type | answer | questions |",
        "|---|---|---|---|",
        table,
        "",
        f"Total: {len(questions)} questions. Fields: {fields}.",
        "",
        *_facts_line(facts or []),
        f"**Licence:** `{license_id}` ({license_note}).",
        "",
        f"**Verification:** {_verify_line(report)}.",
    ]
    if report is not None and report.get("per_type"):
        body += ["", "```json", json.dumps(report["per_type"], indent=1, ensure_ascii=False), "```"]
    body += [
        "",
        "Load with `datasets.load_from_disk(THIS_FOLDER)` (a DatasetDict, one split per type) or, "
        "from a hub repository or this folder, `datasets.load_dataset(REPO, TYPE)` (one config per "
        "type, split `test`); score answers with leak-metrics' "
        "alias judge (`leakres eval` measures an unlearned model on these questions).",
        "",
        *citation_block(),
    ]
    return "\n".join(header + body)


def _card_fields(prompt_form: str) -> str:
    """The card's list of record fields (``prompt``: the text asked in ``prompt_form``)."""
    return (
        "`id`, `type`, `question`, `answer`, `answer_aliases`, `target` {subject, relation, "
        "object}, `bridge`, `premises`, `options`, `source` {dataset, record_id}, `instruction` "
        "(the type's answer-form instruction), `prompt` (the text asked: "
        f"prompt form `{prompt_form}`) (docs/ARCHITECTURE.md section 1 of leakres)"
    )


def _card_header(license_id: str, types: list[str], facts: list[str]) -> list[str]:
    """The hub's YAML header lines of the dataset card."""
    return [
        "---",
        f"license: {license_id}",
        "language:\n- en",
        "task_categories:\n- question-answering",
        "tags:\n- unlearning\n- multi-hop\n- kg-qgen",
        # one config per type: the types carry different optional fields (MT's conditionals, DS's
        # option_ids, ...), so they cannot share one schema on the hub
        "configs:",
        *[
            f"- config_name: {t}\n  data_files:\n  - split: test\n    path: {t}/*.arrow"
            for t in types
        ],
        *[
            f"- config_name: {_fact_config(name)}\n  data_files:\n"
            f"  - split: test\n    path: facts/{_fact_config(name)}/*.arrow"
            for name in facts
        ],
        "---",
    ]


def export_hf(
    set_dir: str | Path,
    out: str | Path,
    *,
    license_id: str | None = None,
    overwrite: bool = False,
    prompt_form: str = DEFAULT_PROMPT_FORM,
) -> Path:
    """Write the set as a ``datasets.DatasetDict`` (one split per type) plus its dataset card;
    each row carries ``prompt``, its text in ``prompt_form``."""
    import datasets
    from datasets import Dataset, DatasetDict

    questions, manifest, report = read_set(set_dir)
    questions = [{**q, "prompt": render_prompt(q, prompt_form)} for q in questions]
    splits = {
        t: Dataset.from_list([q for q in questions if q["type"] == t]) for t in _types_of(questions)
    }

    def fill(tmp: Path) -> None:
        bars_were_on = datasets.utils.logging.is_progress_bar_enabled()
        datasets.disable_progress_bars()
        facts = _copy_facts(set_dir, tmp)
        try:
            DatasetDict(splits).save_to_disk(str(tmp))
            for name in facts:  # also as Arrow (the hub reads one format per repository)
                rows = [
                    json.loads(line) for line in (tmp / name).open(encoding="utf-8") if line.strip()
                ]
                Dataset.from_list(rows).save_to_disk(str(tmp / "facts" / _fact_config(name)))
        finally:
            if bars_were_on:
                datasets.enable_progress_bars()
        (tmp / "README.md").write_text(
            dataset_card(questions, manifest, report, license_id, facts, prompt_form),
            encoding="utf-8",
        )
        if report is not None:
            (tmp / "verify_report.json").write_text(
                json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8"
            )

    marker = {"to": "hf", "set": str(Path(set_dir)), "types": list(splits)}
    marker["prompt_form"] = prompt_form
    return _write_atomic(Path(out), overwrite, fill, marker)
