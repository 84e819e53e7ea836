"""Knowledge graph + logic-typed multi-hop question generation for unlearning benchmarks.

Quick start::

    import kg_qgen
    graph = kg_qgen.load_source("mquake", "MQuAKE-hard-dev.json")
    result = kg_qgen.build(graph, per_type=100, seed=0)
    kg_qgen.save(result, "out/mquake")
"""

from kg_qgen.checking import Check, Reject
from kg_qgen.errors import KgQgenError, KgQgenInputError, UnknownNameError
from kg_qgen.generate.base import QuestionGenerator, make_record
from kg_qgen.generate.registry import available_generators, get_generator, register_generator
from kg_qgen.graph import Entity, Fact, KnowledgeGraph
from kg_qgen.match.base import QUESTION_TYPES, Match
from kg_qgen.match.index import MatchConfig
from kg_qgen.pipeline import BuildConfig, BuildResult, build, save
from kg_qgen.prompt_form import (
    DEFAULT_PROMPT_FORM,
    PROMPT_FORMS,
    instruction_for,
    render_prompt,
    with_instructions,
)
from kg_qgen.qtypes import (
    QuestionType,
    get_question_type,
    question_type_codes,
    register_question_type,
)
from kg_qgen.sources.registry import available_sources, get_source, load_source, register_source

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_PROMPT_FORM",
    "PROMPT_FORMS",
    "QUESTION_TYPES",
    "BuildConfig",
    "BuildResult",
    "Check",
    "Entity",
    "Fact",
    "KgQgenError",
    "KgQgenInputError",
    "KnowledgeGraph",
    "Match",
    "MatchConfig",
    "QuestionGenerator",
    "QuestionType",
    "Reject",
    "UnknownNameError",
    "available_generators",
    "available_sources",
    "build",
    "get_generator",
    "get_question_type",
    "get_source",
    "instruction_for",
    "load_source",
    "make_record",
    "question_type_codes",
    "register_generator",
    "register_question_type",
    "register_source",
    "render_prompt",
    "save",
    "with_instructions",
]
