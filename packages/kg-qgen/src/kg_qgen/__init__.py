"""Knowledge graph + logic-typed multi-hop question generation for unlearning benchmarks."""

from kg_qgen.errors import KgQgenInputError
from kg_qgen.generate.base import QuestionGenerator, make_record
from kg_qgen.graph import Entity, Fact, KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES, Match
from kg_qgen.sources.registry import load_source
from kg_qgen.verify.base import Check, Reject

__version__ = "0.1.0"

__all__ = [
    "QUESTION_TYPES",
    "Check",
    "Entity",
    "Fact",
    "KgQgenInputError",
    "KnowledgeGraph",
    "Match",
    "QuestionGenerator",
    "Reject",
    "load_source",
    "make_record",
]
