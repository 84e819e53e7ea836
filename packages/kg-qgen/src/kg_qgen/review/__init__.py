"""Human review of a built question set (paper appendix F.1, figure 7).

``kg-qgen review OUT_DIR`` serves a local annotation web app over a seeded uniform sample per type;
annotators judge whether each question decomposes correctly into its single-hop questions, may
flag it, and comment. Annotations go to ``OUT_DIR/review.sqlite``; ``--summary`` prints validity
per type with 95% Wilson intervals, the 0-100 score and Fleiss' kappa.

The web app needs the ``review`` extra (Flask); sampling, storage and statistics do not.
"""

from kg_qgen.review.decompose import LOGIC_RULES, Decomposition, LogicRule, SingleHop, decompose
from kg_qgen.review.sampling import SampleItem, read_questions, sample_per_type
from kg_qgen.review.session import DB_NAME, ReviewSession, default_db_path, open_store
from kg_qgen.review.storage import FLAGS, Annotation, ReviewError, ReviewStore, SampleRow
from kg_qgen.review.summary import (
    KappaResult,
    ReviewSummary,
    TypeValidity,
    annotations_csv,
    fleiss_kappa,
    format_summary,
    summarize,
    wilson_interval,
)

__all__ = [
    "DB_NAME",
    "FLAGS",
    "LOGIC_RULES",
    "Annotation",
    "Decomposition",
    "KappaResult",
    "LogicRule",
    "ReviewError",
    "ReviewSession",
    "ReviewStore",
    "ReviewSummary",
    "SampleItem",
    "SampleRow",
    "SingleHop",
    "TypeValidity",
    "annotations_csv",
    "decompose",
    "default_db_path",
    "fleiss_kappa",
    "format_summary",
    "open_store",
    "read_questions",
    "sample_per_type",
    "summarize",
    "wilson_interval",
]
