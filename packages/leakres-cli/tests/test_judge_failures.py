"""A judge that raises on one response costs that question's verdict, not the stage's answers.

`leakres run --preset tuned` once lost a whole GA evaluation because the alias judge raised on
one answer ("West Europe."): judging ran after decoding, inside the cell's computation. Now the
batch is judged again one question at a time; the failing question is unjudged (None: never
counted as wrong, re-judged by a resumed run) and named on stderr. An unusable LLM endpoint still
stops the run at once (one question at a time would only wait on it again and again)."""

from __future__ import annotations

import pytest
from leak_metrics import JudgeEndpointError, get_judge
from leakres_cli.stages.judging import MAX_JUDGE_ERRORS_SHOWN, judge_any

ALIAS = get_judge("alias")


def _question(qid: str) -> dict:
    return {"id": qid, "type": "SH", "question": "What is the capital of France?",
            "answer": "Paris", "answer_aliases": ["City of Light"]}  # fmt: skip


class Breaking:
    """The alias judge, except that a batch holding the response ``boom`` raises."""

    name = "alias"

    def __init__(self, error: Exception) -> None:
        self.error = error

    def judge(self, items):
        if any(item.response == "boom" for item in items):
            raise self.error
        return ALIAS.judge(items)


def test_the_failing_question_is_unjudged_and_named_the_others_keep_their_verdicts(capsys) -> None:
    questions = [_question("q1"), _question("q2"), _question("q3")]
    responses = [["Paris."], ["boom", "Paris."], ["Lyon."]]
    verdicts = judge_any(Breaking(IndexError("list index out of range")), questions, responses)
    assert verdicts == [True, None, False]
    err = capsys.readouterr().err
    assert "question q2" in err and "IndexError: list index out of range" in err
    assert "left unjudged" in err and "q1" not in err and "q3" not in err


def test_many_failures_are_counted_not_all_printed(capsys) -> None:
    n = MAX_JUDGE_ERRORS_SHOWN + 4
    questions = [_question(f"q{i}") for i in range(n)]
    verdicts = judge_any(Breaking(ValueError("bad")), questions, [["boom"]] * n)
    assert verdicts == [None] * n
    err = capsys.readouterr().err
    assert err.count("left unjudged (a resumed run") == MAX_JUDGE_ERRORS_SHOWN
    assert f"{n} questions left unjudged in all" in err


def test_an_unusable_endpoint_still_stops_the_run() -> None:
    with pytest.raises(JudgeEndpointError):
        judge_any(Breaking(JudgeEndpointError("http://127.0.0.1:9 is unreachable")),
                  [_question("q1")], [["boom"]])  # fmt: skip
