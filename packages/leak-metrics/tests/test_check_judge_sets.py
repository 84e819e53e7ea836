"""``check-judge`` over every labelled set of a folder (issue 35 item 5): the development set, the
round-three sealed set (now development), the round-four sealed set and any other
``judge_labels*.jsonl``, each with its second labeller's agreement; on small fixture files written
here (never a real sealed file), with numbers worked out by hand; and the kappa function."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from leak_metrics import get_judge
from leak_metrics.cli import main
from leak_metrics.errors import InputError
from leak_metrics.judges.label_sets import (
    DEV_FILES,
    SEALED_FILE,
    SEALED_R4_FILE,
    SECOND_FILE,
    SECOND_R4_FILE,
    cohen_kappa,
    labeller_agreement,
    load_dev,
    present_sets,
    report_folder,
    report_set,
)
from leak_metrics.judges.labelled import load_labels

US = ["USA", "U.S.", "America", "United States of America"]


def _record(rid: str, stage: str, question: str, answer: str, response: str, label: str) -> dict:
    return {
        "id": rid,
        "type": "SH",
        "question": question,
        "answer": answer,
        "aliases": US if answer == "United States" else [],
        "options": [],
        "response": response,
        "label": label,
        "reason": "fixture",
        "source": {"run": "fixture", "stage": stage},
    }


DEV = [
    _record(
        "d1", "base", "What is Berlin's country?", "Germany", "Berlin is in Germany.", "correct"
    ),
    _record("d2", "base", "What is Berlin's country?", "Germany", "It is Austria.", "incorrect"),
    # the judge says correct (an adjective describing the subjects): a lenient disagreement
    _record(
        "d3",
        "ga-eval",
        "What country do Canberra and Sydney have in common?",
        "Australia",
        "Canberra and Sydney are both Australian cities.",
        "incorrect",
    ),
]
SEALED = [
    _record("s1", "base", "What is Lyon's country?", "France", "Lyon is in France.", "correct"),
    _record("s2", "base", "What is Lyon's country?", "France", "Lyon is in Spain.", "incorrect"),
    # the judge says incorrect (the gold is negated): a strict disagreement
    _record(
        "s3",
        "ga-attack-probab",
        "What is Lyon's country?",
        "France",
        "Lyon is not in Spain but in France, not Italy.",
        "correct",
    ),
    _record(
        "s4",
        "ga-attack-probab",
        "Which country is Jeff Bezos a citizen of?",
        "United States",
        "Jeff Bezos is not a citizen of the United States.",
        "correct",
    ),
]
# a second labeller on three of the sealed ids: disagrees on s3
SECOND = [
    {**SEALED[0]},
    {**SEALED[1]},
    {**SEALED[2], "label": "incorrect"},
]


ROME, MADRID = "What is Rome's country?", "What is Madrid's country?"
# The round-four sealed set: the judge says True, False, True, False, True; r5 is labelled
# incorrect ("the Italian capital" is accepted by the judge): 4 of 5 agree, 1 false-correct.
R4 = [
    _record("r1", "base", ROME, "Italy", "Rome is in Italy.", "correct"),
    _record("r2", "npo-eval", ROME, "Italy", "Rome is in Greece.", "incorrect"),
    _record("r3", "base", MADRID, "Spain", "Madrid is the capital of Spain.", "correct"),
    _record("r4", "npo-eval", MADRID, "Spain", "Madrid is in Portugal, not Spain.", "incorrect"),
    _record("r5", "base", ROME, "Italy", "Rome is the Italian capital.", "incorrect"),
]
# The second labeller on r1, r2, r3, r5 (+ one id not in the set): correct, incorrect,
# incorrect, correct. First on those: T, F, T, F; second: T, F, F, T -> 2 of 4 agree (50.0%);
# p_o = 0.5, p_e = 0.5 * 0.5 + 0.5 * 0.5 = 0.5, kappa = 0. The judge on the same ids: T, F, T, T
# -> 3 of 4 agree with the first (75.0%); p_e = 0.5 * 0.75 + 0.5 * 0.25 = 0.5, kappa = 0.5.
R4_SECOND = [
    {**R4[0]},
    {**R4[1]},
    {**R4[2], "label": "incorrect"},
    {**R4[4], "label": "correct"},
    _record("r9", "base", ROME, "Italy", "Italy.", "correct"),
]


def _write(folder: Path, name: str, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r) + "\n" for r in records)
    (folder / name).write_text(text, encoding="utf-8")


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    _write(tmp_path, DEV_FILES[0], DEV[:2])
    _write(tmp_path, DEV_FILES[1], DEV[2:])
    _write(tmp_path, SEALED_FILE, SEALED)
    _write(tmp_path, SECOND_FILE, SECOND)
    return tmp_path


def test_cohen_kappa_on_a_worked_table() -> None:
    # 20 both yes, 5 first-only, 10 second-only, 15 both no: p_o = 0.7, p_e = 0.5, kappa = 0.4
    first = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    second = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    assert cohen_kappa(first, second) == pytest.approx(0.4)
    assert cohen_kappa(first, first) == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert cohen_kappa([True, True], [True, True]) is None  # chance agreement 1: undefined
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError, match="differ in length"):
        cohen_kappa([True], [True, False])


def test_labeller_agreement_pairs_by_id(folder: Path) -> None:
    humans = labeller_agreement(
        load_labels(folder / SEALED_FILE), load_labels(folder / SECOND_FILE)
    )
    assert humans["n"] == 3 and humans["agreement"] == pytest.approx(2 / 3)
    # first: [T, F, T]; second: [T, F, F]: p_o 2/3, p_e = 2/3*1/3 + 1/3*2/3 = 4/9
    assert humans["kappa"] == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))
    assert humans["only_second"] == []


def test_report_set_rows_and_classes(folder: Path) -> None:
    report = report_set("sealed set", get_judge("alias"), load_labels(folder / SEALED_FILE))
    assert report.overall.n == 4
    assert {row.group for row in report.by_stage} == {"base", "ga-attack-probab"}
    assert [d["id"] for d in report.disagreements] == ["s4"]
    assert report.disagreements[0]["class"] == "strict-negation"
    dev = report_set("development set", get_judge("alias"), load_dev(folder))
    assert [(d["id"], d["class"]) for d in dev.disagreements] == [("d3", "lenient-demonym")]
    assert dev.overall.false_correct == 1 and dev.overall.false_correct_rate == pytest.approx(1 / 3)


R3_NAME = "round-three sealed set (now development)"
R4_NAME = "sealed set, round four (measured once after the rules froze)"


def test_check_judge_prints_every_block(folder: Path) -> None:
    result = CliRunner().invoke(
        main, ["check-judge", "--labels-dir", str(folder), "--show-disagreements"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "### development set: 3 responses" in out
    assert f"### {R3_NAME}: 4 responses, agreement 75.0%" in out
    assert R4_NAME not in out  # no round-four file yet: no block
    assert "| stage | n | agreement | false-correct | false-incorrect |" in out
    assert "- [lenient-demonym] d3 (SH, ga-eval): label incorrect, judge True" in out
    assert "- [strict-negation] s4 (SH, ga-attack-probab): label correct, judge False" in out
    assert (
        f"human-human agreement ({R3_NAME}: first vs second labeller, 3 shared ids): 66.7%" in out
    )


def test_round_four_sealed_set_and_its_second_labeller(folder: Path) -> None:
    _write(folder, SEALED_R4_FILE, R4)
    _write(folder, SECOND_R4_FILE, R4_SECOND)
    result = CliRunner().invoke(
        main, ["check-judge", "--labels-dir", str(folder), "--show-disagreements"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    # the blocks in order: development, round three (now development), round four
    order = [out.index(f"### {name}:") for name in ("development set", R3_NAME, R4_NAME)]
    assert order == sorted(order)
    assert f"### {R4_NAME}: 5 responses, agreement 80.0%" in out
    assert "| all | 5 | 80.0% | 1 (20.0%) | 0 (0.0%) |" in out
    assert "| npo-eval | 2 | 100.0% | 0 (0.0%) | 0 (0.0%) |" in out
    assert "- [lenient-demonym] r5 (SH, base): label incorrect, judge True" in out
    assert (
        f"human-human agreement ({R4_NAME}: first vs second labeller, 4 shared ids): 50.0%, "
        "Cohen's kappa 0.000; the judge vs the first labeller on the same ids: 75.0%, "
        "kappa 0.500 (1 second-label ids not in the set)"
    ) in out
    payload = json.loads(
        CliRunner().invoke(main, ["check-judge", "--labels-dir", str(folder), "--json"]).output
    )
    assert [s["set"] for s in payload["sets"]] == ["development set", R3_NAME, R4_NAME]
    r4 = payload["sets"][2]
    assert r4["overall"]["n"] == 5 and r4["overall"]["false_correct"] == 1
    assert r4["overall"]["agreement"] == pytest.approx(0.8)
    humans = {h["set"]: h for h in payload["labellers"]}
    assert humans[R4_NAME]["n"] == 4 and humans[R4_NAME]["agreement"] == pytest.approx(0.5)
    assert humans[R4_NAME]["kappa"] == pytest.approx(0.0)
    assert humans[R4_NAME]["judge_on_same_ids"] == pytest.approx(0.75)
    assert humans[R4_NAME]["judge_kappa_on_same_ids"] == pytest.approx(0.5)
    assert humans[R4_NAME]["only_second"] == ["r9"]
    assert humans[R3_NAME]["n"] == 3 and humans[R3_NAME]["agreement"] == pytest.approx(2 / 3)


def test_round_four_without_second_labels_and_other_files(folder: Path) -> None:
    _write(folder, SEALED_R4_FILE, R4)
    _write(folder, "judge_labels_extra.jsonl", R4[:2])  # another set, under its own name
    _write(folder, "judge_labels_extra_second.jsonl", [{**R4[0], "label": "incorrect"}])
    (folder / SEALED_FILE).unlink()
    (folder / SECOND_FILE).unlink()
    names = [spec.name for spec in present_sets(folder)]
    assert names == ["development set", R4_NAME, "judge_labels_extra.jsonl"]
    reports = report_folder(get_judge("alias"), folder)
    assert [humans is None for _, humans in reports] == [True, True, False]
    extra = reports[2][1]
    assert extra is not None and extra["n"] == 1 and extra["agreement"] == pytest.approx(0.0)
    assert reports[1][0].overall.agree == 4 and reports[2][0].overall.agree == 2


def test_check_judge_json_and_missing_files(folder: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check-judge", "--labels-dir", str(folder), "--json"])
    payload = json.loads(result.output)
    assert [s["set"] for s in payload["sets"]] == ["development set", R3_NAME]
    assert [h["n"] for h in payload["labellers"]] == [3]
    assert payload["overall"]["n"] == 3  # the development set's rows stay at the top level
    (folder / SEALED_FILE).unlink()  # no sealed file: only the development block
    result = CliRunner().invoke(main, ["check-judge", "--labels-dir", str(folder), "--json"])
    payload = json.loads(result.output)
    assert [s["set"] for s in payload["sets"]] == ["development set"]
    assert "labellers" not in payload
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["check-judge", "--labels-dir", str(empty)])
    assert result.exit_code == 2 and "development labels missing" in result.output


def test_an_id_in_two_development_files_is_an_error(folder: Path) -> None:
    _write(folder, DEV_FILES[1], DEV[:1])
    with pytest.raises(InputError, match="id 'd1' labelled in two development files"):
        load_dev(folder)
