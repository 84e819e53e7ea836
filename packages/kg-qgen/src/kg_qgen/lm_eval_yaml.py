"""The YAML files of an lm-evaluation-harness task folder (``kg-qgen export --format lm-eval``):
one task per question type (:func:`task_yaml`) and the group over them (:func:`group_yaml`).
:mod:`kg_qgen.export` writes them beside ``utils.py`` (:mod:`kg_qgen.lm_eval_task`)."""

from __future__ import annotations

import json
from typing import Any

from kg_qgen.prompt_form import DEFAULT_PROMPT_FORM, check_form
from kg_qgen.qtypes import get_question_type

__all__ = ["group_yaml", "task_yaml"]


def type_name(code: str) -> str:
    """The type's name as the paper gives it, from kg-qgen's registry (the one source):
    ``"Modus Tollens"`` for ``MT``; a plugin type's own ``name``."""
    return get_question_type(code).name


def _yaml_scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string or number is a YAML scalar


def task_yaml(
    name: str, qtype: str, max_gen_toks: int, prompt_form: str = DEFAULT_PROMPT_FORM
) -> str:
    """One type's task: greedy ``generate_until`` on the question in ``prompt_form`` (the question
    and its instruction, or the bare question; chat template: pass ``--apply_chat_template``, as
    leakres prompts), EOS as the only stop (leakres' stop rule: ``until: []``, the harness adds
    the tokenizer's EOS), the normalisation filter, ``leak_match``."""
    text = "{{question}}" if check_form(prompt_form) == "bare" else "{{question}} {{instruction}}"
    return "\n".join(
        [
            f"task: {name}_{qtype.lower()}",
            f"task_alias: {_yaml_scalar(f'{qtype}: {type_name(qtype)}')}",
            f"tag: {name}",
            "custom_dataset: !function utils.load_questions",
            "dataset_kwargs:",
            f"  qtype: {qtype}",
            "test_split: test",
            "output_type: generate_until",
            f"doc_to_text: {_yaml_scalar(text)}",
            'doc_to_target: "{{answer}}"',
            "num_fewshot: 0",
            "generation_kwargs:",
            "  until: []",
            "  do_sample: false",
            f"  max_gen_toks: {max_gen_toks}",
            "filter_list:",
            "  - name: leakres-normalised",
            "    filter:",
            "      - function: custom",
            "        filter_fn: !function utils.normalise_responses",
            "      - function: take_first",
            "process_results: !function utils.process_results",
            "metric_list:",
            "  - metric: leak_match",
            "    aggregation: mean",
            "    higher_is_better: true",
            "metadata:",
            "  version: 1.0",
            "",
        ]
    )


def group_yaml(name: str, types: list[str]) -> str:
    lines = [f"group: {name}", "task:"]
    lines += [f"  - {name}_{t.lower()}" for t in types]
    lines += [
        "aggregate_metric_list:",
        "  - metric: leak_match",
        "    aggregation: mean",
        "    weight_by_size: true",
        "metadata:",
        "  version: 1.0",
        "",
    ]
    return "\n".join(lines)
