"""One recovery attack (recover-attacks) on S_suc of one method, and the attacks' inputs: relearn
data and in-context facts. Cell: ``METHOD/attack-ATTACK``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.records import FactKey, Record, fact_key
from leakres_cli.stages.answering import attack_targets, stop_at_answer_end
from leakres_cli.stages.judging import JudgingHost, rejudge


class AttackHost(JudgingHost, Protocol):
    """What an attack cell takes from the run: configuration, cells, judges, the base model, the
    decoding protocol and the engine router (the pipeline's ``Benchmark`` is one)."""

    cfg: RunConfig
    progress: bool
    generation: Any  # leakres_cli.models.engines.GenerationRouter

    def model(self) -> tuple[Any, Any]: ...

    def decoding(self) -> dict[str, Any]: ...


def make_attack(
    cfg: RunConfig, protocol: dict[str, Any], attack: str, budget: dict[str, Any] | None = None
) -> Any:
    """The attack under the run's decoding protocol (its budget, batch size and seed).

    --set may still choose an attack's seed or batch size (the batch size never changes a
    response); its token budget is always the evaluation's (checked before the run starts).
    ``budget``: one rung of an --attack-budgets ladder (``{field: rung}``), over --set.
    """
    from recover_attacks import get_attack

    overrides = {
        "max_new_tokens": protocol["max_new_tokens"],
        "batch_size": protocol["batch_size"],
        "seed": protocol["seed"],
        **cfg.attack_overrides.get(attack, {}),
        **(budget or {}),
    }
    return get_attack(attack, **overrides)


def attack(
    bench: AttackHost,
    method: str,
    attack_name: str,
    targets: list[Record],
    relearn: list[dict[str, str]],
    context: dict[str, list[dict[str, str]]],
    get_unlearned: Callable[[], Any],
    *,
    cell: str | None = None,
    budget: dict[str, Any] | None = None,
    judged: Any = None,
) -> dict[str, Any]:
    """One attack on S_suc (a cell). Empty S_suc: no model is needed, the settings still come
    from the attack's config dataclass, and RR is left to leak-metrics (undefined).

    ``cell``/``budget``/``judged``: another cell name, one ladder rung, and what judges the
    run (``judged.payload(atk, results, targets, responses)``) and re-judges a stored cell
    (``judged.reuse(stored)``): :class:`.budget_ladders.SampleVerdicts`, one verdict per sample."""
    name = cell or f"{method}/attack-{attack_name}"
    by_id = {q["id"]: q for q in targets}

    def compute() -> dict[str, Any]:
        atk = make_attack(bench.cfg, bench.decoding(), attack_name, budget)
        results = []
        if targets:  # probab/focus_on_key decode on the server with --engine openai
            base_model, tokenizer = bench.model()
            with stop_at_answer_end():  # every answer the attack decodes ends where it is judged
                results = bench.generation.run_attack(
                    atk,
                    get_unlearned(),
                    tokenizer,
                    attack_targets(targets, bench.decoding()),
                    original_model=base_model,
                    relearn_data=relearn,
                    context_facts=context,
                    progress=bench.progress,
                )
        by_result = {r.id: r for r in results}
        responses = [list(by_result[q["id"]].responses) for q in targets]
        if judged is not None:
            return judged.payload(atk, results, targets, responses)
        return attack_payload(bench, atk, results, targets, responses)

    def reuse(stored: dict[str, Any]) -> dict[str, Any]:
        if judged is not None:
            return judged.reuse(stored)
        return rejudge(bench, name, stored, "recovered", by_id, lambda i: stored["responses"][i])

    return bench.store.cached(
        name,
        compute,
        # Re-judged evaluation verdicts can change S_suc; a cell of another S_suc is recomputed.
        valid=lambda stored: set(stored["recovered"]) == set(by_id),
        reuse=reuse,
    )


def attack_payload(
    bench: AttackHost, atk: Any, results: list, targets: list[Record], responses: list[list[str]]
) -> dict[str, Any]:
    """The attack cell: settings, the decoding it ran under, responses and the judge's verdicts."""
    recovered = bench.judge(targets, responses)
    protocol = bench.decoding()
    decoding = {
        "max_new_tokens": atk.config.max_new_tokens,
        "batch_size": atk.config.batch_size,
        "seed": atk.config.seed,
        "stop": protocol["stop"],
        "answer_end": protocol.get("answer_end"),
        "chat_template": protocol["chat_template"],
        "prompt_form": protocol.get("prompt_form"),
    }
    return {
        "settings": results[0].settings if results else atk.settings(),
        "decoding": decoding,
        "same_budget_as_evaluation": decoding["max_new_tokens"] == protocol["max_new_tokens"],
        "responses": {q["id"]: r for q, r in zip(targets, responses, strict=True)},
        "recovered": {q["id"]: ok for q, ok in zip(targets, recovered, strict=True)},
        "judge": bench.judge_identity(),
    }


def context_facts(
    questions: list[Record], forget_keys: set[FactKey]
) -> dict[str, list[dict[str, str]]]:
    """For in-context attacks: up to 3 non-forgotten SH facts about the same subject, per question.

    A related fact whose answer is the forgotten object would state the forgotten fact in other words
    (recover-attacks rejects such context), so it is left out.
    """
    by_subject: dict[str, list[Record]] = defaultdict(list)
    for q in questions:
        if q["type"] == "SH" and fact_key(q["target"]) not in forget_keys:
            by_subject[q["target"]["subject"]].append(q)
    context = {}
    for q in questions:
        forgotten_object = q["target"]["object"].casefold()
        related = [
            {"question": r["question"], "answer": r["answer"]}
            for r in by_subject.get(q["target"]["subject"], [])
            if r["answer"].casefold() != forgotten_object
        ]
        context[q["id"]] = related[:3]
    return context


def relearn_data(retain: list[Record], forget: list[Record]) -> list[dict[str, str]]:
    """Retain facts for relearning, minus any that restate a forgotten (subject, object) pair."""
    forgotten = {(f["target"]["subject"], f["target"]["object"].casefold()) for f in forget}
    return [
        {"question": q["question"], "answer": q["answer"]}
        for q in retain
        if (q["target"]["subject"], q["answer"].casefold()) not in forgotten
    ]
