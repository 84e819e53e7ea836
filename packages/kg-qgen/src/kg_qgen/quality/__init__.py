"""LLM quality judges for a built question set (paper appendix F.1, table 6).

``kg-qgen score SET_DIR --judge-model M --base-url URL`` scores every question 0-100 on logical
correctness, clarity and naturalness through the OpenAI-compatible backend of
:mod:`kg_qgen.llm` (cached, retried, concurrency-limited; the key comes from the environment),
and writes the mean per type and judge with bootstrap CIs, the per-item scores, and the judges'
agreement with the human review when one exists. Needs the ``llm`` extra (openai).
"""

from kg_qgen.quality.judge import ItemScore, QualityJudge, score_with_judges
from kg_qgen.quality.prompt import CRITERIA, QUALITY_PROMPT_VERSION, parse_scores, quality_prompt
from kg_qgen.quality.table import (
    MeanCI,
    agreement_with_human,
    bootstrap_mean,
    format_table6,
    pearson,
    roc_auc,
    table6,
)

__all__ = [
    "CRITERIA",
    "QUALITY_PROMPT_VERSION",
    "ItemScore",
    "MeanCI",
    "QualityJudge",
    "agreement_with_human",
    "bootstrap_mean",
    "format_table6",
    "parse_scores",
    "pearson",
    "quality_prompt",
    "roc_auc",
    "score_with_judges",
    "table6",
]
