"""Probab (Scholten et al., ICLR 2025): sample several answers, recovered if any is correct."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..base import Attack, AttackResult
from ..budget_axis import BudgetAxis
from ..errors import ConfigError
from ..generation import generate, question_prompt
from ..records import QuestionRecord
from .common import DecodeConfig


@dataclasses.dataclass
class ProbabConfig(DecodeConfig):
    """temperature 0.8, top_p 0.95 and 5 samples follow the paper (table 5); top_k 0 = off."""

    temperature: float = 0.8
    top_p: float = 0.95
    top_k: int = 0
    num_samples: int = 5

    def validate(self) -> None:
        super().validate()
        if self.temperature <= 0 or not 0 < self.top_p <= 1 or self.num_samples < 1:
            raise ConfigError(
                "ProbabConfig: need temperature > 0, 0 < top_p <= 1, num_samples >= 1"
            )


class ProbabAttack(Attack[ProbabConfig]):
    """All samples of a batch come from ONE ``generate`` call (``num_return_sequences``)."""

    name = "probab"
    budget = BudgetAxis(
        "num_samples", "samples per question (any-of-N)", (1, 2, 5, 10, 20), prefix=True
    )
    config_cls = ProbabConfig

    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        progress: bool,
    ) -> list[AttackResult]:
        c = self.config
        responses = generate(
            model,
            tokenizer,
            [question_prompt(q) for q in questions],
            do_sample=True,
            temperature=c.temperature,
            top_p=c.top_p,
            top_k=c.top_k,
            num_return_sequences=c.num_samples,
            max_new_tokens=c.max_new_tokens,
            batch_size=c.batch_size,
            seed=c.seed,
            progress=progress,
            engine=self.engine,
        )
        return self._results(questions, responses)
