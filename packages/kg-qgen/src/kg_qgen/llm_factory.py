"""The ``llm`` question generator as the registry builds it: :mod:`kg_qgen.llm`'s generator held
to :mod:`kg_qgen.verify`'s per-question rules.

``llm`` and ``verify`` never import each other (they share only :mod:`kg_qgen.checking`); this
module is where the two meet. :mod:`kg_qgen.generate.registry` names it lazily
(``"kg_qgen.llm_factory:make_llm_generator"``, so listing generators imports no LLM code), and
``kg-qgen build --llm-generate`` (:mod:`kg_qgen.llm.cli`) builds its generator here too.
"""

from __future__ import annotations

from typing import Any

from kg_qgen.llm.backend import LLMBackend
from kg_qgen.llm.generator import LLMQuestionGenerator
from kg_qgen.verify.deterministic import question_rules

__all__ = ["make_llm_generator"]


def make_llm_generator(
    seed: int = 0, backend: LLMBackend | None = None, **options: Any
) -> LLMQuestionGenerator:
    """Registry factory: ``get_generator("llm", seed=0, backend=...)``, an
    :class:`~kg_qgen.llm.generator.LLMQuestionGenerator` whose paraphrases must pass
    ``kg-qgen verify``'s per-question rules (:func:`~kg_qgen.verify.deterministic.question_rules`)."""
    if backend is None:
        raise ValueError(
            "the 'llm' generator needs backend=<LLMBackend> "
            "(on the command line: --llm-backend/--llm-model with --llm-generate)"
        )
    return LLMQuestionGenerator(backend=backend, rules=question_rules(), seed=seed, **options)
