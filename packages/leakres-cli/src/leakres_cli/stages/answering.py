"""The run's one greedy decoding protocol and the answers decoded under it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leakres_cli.config.run_config import PROMPT_FORMS, RunConfig
from leakres_cli.records import Record

#: The rule decoding stops at, as results record it (``decoding.answer_end``).
ANSWER_END_RULE = "leak_metrics.answer_stop"


def decoding_protocol(cfg: RunConfig) -> dict[str, Any]:
    """The run's one greedy decoding protocol: evaluation and every attack decode under it.

    A containment judge rewards longer answers, so an attack with a larger token budget than the
    evaluation would inflate RR; the attacks get these values (``attack_overrides``) and each
    attack cell records them. Stop rule: EOS, or the end of the committed answer (the judge's
    own rule, leak-metrics' ``answer_stop``: decoding stops once the span the judge reads has
    ended, so no verdict changes; :func:`stop_at_answer_end`). No stop strings cut the text.
    Prompts: the chat template around ``prompt_form``'s text (:func:`question_prompts`).
    """
    return {
        "max_new_tokens": cfg.max_new_tokens,
        "batch_size": cfg.batch_size,
        "seed": cfg.seed,
        "stop": [],
        "answer_end": ANSWER_END_RULE,
        "chat_template": True,
        "prompt_form": cfg.prompt_form,
    }


def question_prompts(questions: Sequence[Record], protocol: dict[str, Any]) -> list[str]:
    """The text each question is asked with under ``protocol``'s prompt form (kg-qgen's
    ``render_prompt``: the bare question, or the question and its type's instruction)."""
    from kg_qgen import render_prompt

    form = protocol.get("prompt_form", PROMPT_FORMS[0])
    return [render_prompt(q, form) for q in questions]


def attack_targets(targets: Sequence[Record], protocol: dict[str, Any]) -> list[Record]:
    """The records an attack is given: copies whose ``instruction`` the prompt form asks for
    (empty for ``bare``), which recover-attacks appends to the question (or to FocusOnKey's
    rewrite of it) in every prompt, exactly as :func:`question_prompts` renders it."""
    from kg_qgen import with_instructions

    return with_instructions(targets, protocol.get("prompt_form", PROMPT_FORMS[0]))


def answer_end_kwargs() -> dict[str, Any]:
    """``recover_attacks.generate`` arguments that stop each answer where the judge's committed
    answer ends (the rule is injected: recover-attacks never imports leak-metrics)."""
    from leak_metrics import ANSWER_STOP_STRINGS, answer_stop

    return {"answer_end": answer_stop, "answer_end_triggers": ANSWER_STOP_STRINGS}


def stop_at_answer_end() -> Any:
    """Context in which every ``recover_attacks.generate`` call (every attack that decodes
    answers: Probab's samples, FocusOnKey, quantization, relearning's evaluation, ...) stops at
    the end of the committed answer. An ``--engine openai`` server decodes the full budget."""
    from recover_attacks.engine import answer_end_rule

    kwargs = answer_end_kwargs()
    return answer_end_rule(kwargs["answer_end"], kwargs["answer_end_triggers"])


def greedy_answers(
    generation: Any,
    model: Any,
    tokenizer: Any,
    questions: Sequence[Record],
    protocol: dict[str, Any],
    *,
    progress: bool,
) -> list[str]:
    """Greedy answers: in-process (recover_attacks.generate, continuous batching) or, with
    ``--engine openai``, from the model's server (``generation``: the run's GenerationRouter) with
    the same prompts and decoding."""
    from recover_attacks import generate

    if not questions:
        return []
    prompts = question_prompts(questions, protocol)
    server = generation.engine_for(model, tokenizer)
    if server is not None:
        from recover_attacks.engine import DecodingConfig

        config = DecodingConfig(max_new_tokens=protocol["max_new_tokens"], seed=protocol["seed"])
        return [responses[0] for responses in generation.answer(server, prompts, config)]
    outputs = generate(
        model,
        tokenizer,
        prompts,
        max_new_tokens=protocol["max_new_tokens"],
        batch_size=protocol["batch_size"],
        seed=protocol["seed"],
        stop=tuple(protocol["stop"]),
        chat_template=protocol["chat_template"],
        progress=progress,
        **(answer_end_kwargs() if protocol.get("answer_end") else {}),
    )
    return [responses[0] for responses in outputs]
