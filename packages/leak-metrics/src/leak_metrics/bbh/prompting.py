"""BBH prompts (plain text completion, as in the BBH paper).

* ``cot=True``: ``<task description + 3 worked examples>\\n\\nQ: <input>\\nA: Let's think step by
  step.`` and the model writes a rationale ending in "So the answer is X." (~128-256 new tokens).
* ``cot=False`` (answer-only, for quick CPU runs): the same three examples with their rationale
  removed (``A: So the answer is X.``); the query ends with ``A: So the answer is``.

Every prompt of a task starts with the same few-shot text (:func:`few_shot_prefix`), which an
engine with a prefix cache computes once. Generation stops at :data:`STOP` (a blank line, or the
model starting the next ``Q:``).
"""

from __future__ import annotations

import re

from leak_metrics.bbh.data import BBHTask
from leak_metrics.errors import InputError

COT_CUE = "Let's think step by step."
ANSWER_CUE = "So the answer is"
#: Stop strings: a CoT answer ends right after "So the answer is X." instead of the model
#: inventing the next few-shot example.
STOP: tuple[str, ...] = ("\n\n", "\nQ:")


def direct_prompt(cot_prompt: str) -> str:
    """The few-shot prompt with every rationale removed: ``A: So the answer is X.``"""
    blocks = cot_prompt.split("\n\nQ: ")
    out = [blocks[0]]
    for block in blocks[1:]:
        question, _, answer = block.partition("\nA: ")
        match = re.search(r"So the answer is (.*?)\.?\s*$", answer, flags=re.DOTALL)
        if match is None:
            raise InputError(f"few-shot example without 'So the answer is': {block[:60]!r}")
        out.append(f"{question}\nA: {ANSWER_CUE} {match.group(1).strip()}.")
    return "\n\nQ: ".join(out)


def few_shot_prefix(task: BBHTask, *, cot: bool) -> str:
    """Task description and the three worked examples (with or without rationale)."""
    return task.cot_prompt if cot else direct_prompt(task.cot_prompt)


def build_prompt(task: BBHTask, example_input: str, *, cot: bool) -> str:
    cue = COT_CUE if cot else ANSWER_CUE
    return f"{few_shot_prefix(task, cot=cot)}\n\nQ: {example_input}\nA: {cue}"
