"""In-context reminding: related, non-forgotten facts as few-shot turns before the question."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Attack, AttackResult
from ..budget_axis import BudgetAxis
from ..errors import ConfigError
from ..generation import format_messages, generate, question_prompt
from ..records import QuestionRecord, as_qa_pairs, check_no_forgotten_fact
from .common import DecodeConfig


@dataclasses.dataclass
class InContextConfig(DecodeConfig):
    """max_shots: at most this many context facts (first ones given) precede each question.

    Each fact is one user turn (its question) and one assistant turn (its answer), so the
    model sees a conversation about the same entities before the attacked question (greedy).
    """

    max_shots: int = 4

    def validate(self) -> None:
        super().validate()
        if self.max_shots < 1:
            raise ConfigError("InContextConfig.max_shots must be >= 1")


class InContextAttack(Attack[InContextConfig]):
    """``context_facts``: one list of (question, answer) pairs for all questions, or a mapping
    from question id to its own list. Facts that restate a forgotten fact raise an error."""

    name = "in_context"
    budget = BudgetAxis("max_shots", "related facts shown in context", (1, 3, 5))
    config_cls = InContextConfig
    requires = ("context_facts",)

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        context_facts: Sequence[Any] | Mapping[str, Sequence[Any]],
        progress: bool,
    ) -> list[AttackResult]:
        c = self.config
        prompts: list[str] = []
        shots_used: list[int] = []
        for q in questions:
            if isinstance(context_facts, Mapping):
                facts = context_facts.get(q["id"], [])
            else:
                facts = context_facts
            pairs = as_qa_pairs(list(facts), what=f"context_facts for {q['id']!r}")
            check_no_forgotten_fact(pairs, questions, what="context_facts")
            pairs = pairs[: c.max_shots]
            messages: list[dict[str, str]] = []
            for fq, fa, _ in pairs:
                messages += [{"role": "user", "content": fq}, {"role": "assistant", "content": fa}]
            messages.append({"role": "user", "content": question_prompt(q)})
            prompts.append(format_messages(tokenizer, messages))
            shots_used.append(len(pairs))
        responses = generate(
            model,
            tokenizer,
            prompts,
            chat_template=False,
            max_new_tokens=c.max_new_tokens,
            batch_size=c.batch_size,
            seed=c.seed,
            progress=progress,
            engine=self.engine,
        )
        results = self._results(questions, responses)
        for r, n, p in zip(results, shots_used, prompts, strict=True):
            r.settings["num_shots"] = n
            r.settings["prompt"] = p
        return results
