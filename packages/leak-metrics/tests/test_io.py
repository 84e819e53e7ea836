"""Reading question and response files, and the errors bad input gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from leak_metrics import InputError, get_judge, judge_any
from leak_metrics.io import load_questions, load_responses, single_response_items


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


QUESTIONS = [
    {
        "id": "SH-000001",
        "type": "SH",
        "question": "Which sport did X play?",
        "answer": "soccer",
        "answer_aliases": ["association football"],
        "target": {"subject": "X", "relation": "sport", "object": "soccer"},
    },
    {
        "id": "HS-000002",
        "type": "HS",
        "question": "Which continent is X's country in?",
        "answer": "Europe",
        "answer_aliases": [],
    },
]


def test_missing_question_id_names_file_line_and_id(tmp_path: Path) -> None:
    qpath = write_jsonl(tmp_path / "questions.jsonl", QUESTIONS)
    rpath = write_jsonl(
        tmp_path / "responses.jsonl",
        [
            {"id": "SH-000001", "response": "Association football."},
            {"id": "HS-000099", "response": "Asia"},
        ],
    )
    questions = load_questions(qpath)
    with pytest.raises(InputError) as info:
        load_responses(rpath, questions, questions_path=qpath)
    message = str(info.value)
    assert f"{rpath}:2:" in message
    assert "'HS-000099'" in message
    assert str(qpath) in message


def test_responses_and_multiple_responses_are_judged(tmp_path: Path) -> None:
    questions = load_questions(write_jsonl(tmp_path / "q.jsonl", QUESTIONS))
    rpath = write_jsonl(
        tmp_path / "attack.jsonl",
        [
            {
                "id": "SH-000001",
                "attack": "probab",
                "responses": ["Tennis.", "Association football."],
            },
            {"id": "HS-000002", "attack": "probab", "responses": ["Asia.", "Africa."]},
        ],
    )
    items = load_responses(rpath, questions)
    verdicts = judge_any(get_judge("alias"), items)
    assert [(v.id, v.correct) for v in verdicts] == [("SH-000001", True), ("HS-000002", False)]
    with pytest.raises(InputError, match="has 2 responses"):
        single_response_items(items)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r":1: invalid JSON"),
        ('{"id": 5, "response": "x"}', r":1: field 'id' must be a string"),
        ('{"id": "SH-000001"}', r":1: record 'SH-000001' has neither 'response' nor 'responses'"),
        ('{"id": "SH-000001", "responses": "x"}', r":1: field 'responses' must be a list"),
    ],
)
def test_malformed_response_lines(tmp_path: Path, line: str, message: str) -> None:
    questions = load_questions(write_jsonl(tmp_path / "q.jsonl", QUESTIONS))
    rpath = tmp_path / "r.jsonl"
    rpath.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_responses(rpath, questions)


def test_bad_question_file(tmp_path: Path) -> None:
    bad = dict(QUESTIONS[0])
    bad["answer_aliases"] = "soccer"
    path = write_jsonl(tmp_path / "q.jsonl", [QUESTIONS[1], bad])
    with pytest.raises(InputError, match=r"q.jsonl:2: field 'answer_aliases'"):
        load_questions(path)
    dup = write_jsonl(tmp_path / "dup.jsonl", [QUESTIONS[1], QUESTIONS[1]])
    with pytest.raises(InputError, match=r"dup.jsonl:2: duplicate question id 'HS-000002'"):
        load_questions(dup)
    with pytest.raises(InputError, match="file not found"):
        load_questions(tmp_path / "absent.jsonl")


def test_question_options_reach_the_judge(tmp_path: Path) -> None:
    ds = {
        "id": "DS-000003",
        "type": "DS",
        "question": "Which of Paris or Lyon is the capital of France?",
        "answer": "Paris",
        "answer_aliases": [],
        "options": ["Paris", "Lyon"],
    }
    questions = load_questions(write_jsonl(tmp_path / "q.jsonl", [*QUESTIONS, ds]))
    rpath = write_jsonl(
        tmp_path / "r.jsonl",
        [
            {"id": "DS-000003", "response": "Paris or Lyon"},
            {"id": "HS-000002", "response": "Europe"},
        ],
    )
    items = single_response_items(load_responses(rpath, questions))
    assert items[0].options == ("Paris", "Lyon") and items[1].options == ()  # absent = []
    verdicts = get_judge("alias").judge(items)
    assert [v.correct for v in verdicts] == [False, True]


def test_bad_options_field(tmp_path: Path) -> None:
    bad = {**QUESTIONS[1], "options": "Paris"}
    with pytest.raises(InputError, match=r"q.jsonl:1: field 'options' must be a list of strings"):
        load_questions(write_jsonl(tmp_path / "q.jsonl", [bad]))
