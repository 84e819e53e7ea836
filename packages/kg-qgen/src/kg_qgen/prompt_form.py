"""How a question record is put to a model: the prompt forms and each type's answer-form instruction.

Evaluation suites ask for the answer's form ("Answer with one of the options."); without it a
small instruct model opens with "To determine ..., we need to ..." and its first sentence, the one a
judge reads, ends before any answer. Every question type therefore declares an instruction
(:attr:`kg_qgen.qtypes.QuestionType.instruction`; a type without one gets
:data:`DEFAULT_INSTRUCTIONS` of its answer kind) and every record carries it in ``instruction``.

Prompt forms (:data:`PROMPT_FORMS`):

- ``answer-form`` (the default): the question, one space, the instruction;
- ``bare``: the question alone (the paper's prompt).

:func:`render_prompt` is the one rendering rule (recover-attacks' ``question_prompt`` applies the
same rule to a record's ``instruction`` field, without importing kg-qgen). The instruction never
names the answer or the options, so it reveals nothing the question does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kg_qgen.errors import KgQgenInputError

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "DEFAULT_PROMPT_FORM",
    "PROMPT_FORMS",
    "instruction_for",
    "render_prompt",
    "type_instruction",
    "with_instructions",
]

PROMPT_FORMS = ("answer-form", "bare")
DEFAULT_PROMPT_FORM = "answer-form"

#: the instruction of a type that declares none, by its answer kind (:data:`qtypes.ANSWER_KINDS`);
#: the built-ins use them too. open and options: the best of three wordings each on held-out
#: questions of the default model (README, "Prompt forms"); yes-no: no built-in type to measure.
DEFAULT_INSTRUCTIONS = {
    "open": "Give only the answer.",
    "options": "Answer with the correct option only.",
    "yes-no": "Answer yes or no.",
}


def check_form(form: str) -> str:
    """``form`` if it is one of :data:`PROMPT_FORMS`, else a one-line ``KgQgenInputError``."""
    if form not in PROMPT_FORMS:
        raise KgQgenInputError(f"unknown prompt form {form!r}; known: {', '.join(PROMPT_FORMS)}")
    return form


def type_instruction(code: str) -> str:
    """The instruction of the registered type ``code``: its own, else its answer kind's default."""
    from kg_qgen.qtypes import get_question_type

    qtype = get_question_type(code)
    return qtype.instruction or DEFAULT_INSTRUCTIONS[qtype.answer_kind]


def instruction_for(record: Mapping[str, Any]) -> str:
    """The record's instruction: its ``instruction`` field when it is a non-empty string, else its
    type's (:func:`type_instruction`); a record of a type not registered here (a set built with a
    plug-in this process lacks) gets the default of the kind its ``options`` imply."""
    own = record.get("instruction")
    if isinstance(own, str) and own.strip():
        return own.strip()
    from kg_qgen.qtypes import find_question_type

    qtype = find_question_type(record.get("type"))
    if qtype is not None:
        return qtype.instruction or DEFAULT_INSTRUCTIONS[qtype.answer_kind]
    options = record.get("options") or []
    if [str(o).lower() for o in options] == ["yes", "no"]:
        return DEFAULT_INSTRUCTIONS["yes-no"]
    return DEFAULT_INSTRUCTIONS["options" if options else "open"]


def render_prompt(record: Mapping[str, Any], form: str = DEFAULT_PROMPT_FORM) -> str:
    """The text a model is asked: ``question`` alone (``bare``) or ``question`` + one space + the
    instruction (``answer-form``)."""
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise KgQgenInputError("no question text", record=str(record.get("id")), field="question")
    if check_form(form) == "bare":
        return question
    return f"{question.rstrip()} {instruction_for(record)}"


def with_instructions(
    records: Iterable[Mapping[str, Any]], form: str = DEFAULT_PROMPT_FORM
) -> list[dict[str, Any]]:
    """Copies of ``records`` whose ``instruction`` is what ``form`` asks: the record's instruction
    (``answer-form``) or ``""`` (``bare``), so that a consumer that appends a non-empty
    ``instruction`` to the question (recover-attacks) renders exactly :func:`render_prompt`."""
    bare = check_form(form) == "bare"
    return [{**r, "instruction": "" if bare else instruction_for(r)} for r in records]
