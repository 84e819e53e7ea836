"""Question types by code: one registration holds everything kg-qgen knows about a type.

A :class:`QuestionType` bundles the type's matcher (graph pattern -> :class:`Match`), its
template builder, its LLM prompt, its logic check (the verifier's re-derivation), its logic rule
for the review's decomposition, its answer kind and the reason a build falls short of it. The
seven built-ins live in :mod:`kg_qgen.builtin_types` (referenced lazily, so this module imports
none of the modules they point at); a third party adds a type with
:func:`register_question_type` or through the entry point group ``leakres.question_types``,
whose value is a ``module:attr`` naming a :class:`QuestionType`. Codes are exact upper case
(the entry point's name is matched case-insensitively); built-ins come before plugins, and a
plugin cannot replace a built-in.

:data:`QUESTION_TYPES` (:mod:`kg_qgen.match.base`) stays the built-in order;
:func:`question_type_codes` lists every registered code, plugins included.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kg_qgen.errors import UnknownNameError
from kg_qgen.match.base import QUESTION_TYPES
from kg_qgen.plugins import Registry

if TYPE_CHECKING:
    from collections import Counter

    from kg_qgen.graph import KnowledgeGraph
    from kg_qgen.match.base import Match
    from kg_qgen.match.index import GraphIndex, MatchConfig

__all__ = [
    "ANSWER_KINDS",
    "ENTRY_POINT_GROUP",
    "QUESTION_TYPE_REGISTRY",
    "QuestionType",
    "find_question_type",
    "get_question_type",
    "question_type_codes",
    "register_question_type",
]

ENTRY_POINT_GROUP = "leakres.question_types"

# open: the answer is an entity, no options; yes-no: options ["yes", "no"]; options: the record
# lists its options (DS) and the answer is one of them.
ANSWER_KINDS = ("open", "yes-no", "options")

Matcher = Callable[
    ["GraphIndex", "MatchConfig", random.Random, "Counter[str] | None"], list["Match"]
]
# (match, graph, index, rng) -> (question text, template frame number, extra record fields)
TemplateBuilder = Callable[
    ["Match", "KnowledgeGraph", "GraphIndex", random.Random], tuple[str, int, dict[str, Any]]
]
# (index, record, premise id triples, normalised question) -> why the record is invalid, or None
LogicCheckFn = Callable[["GraphIndex", dict, list[tuple[str, str, str]], str], "str | None"]
# (match, graph) -> the type-specific body of the LLM generation prompt
PromptBuilder = Callable[["Match", "KnowledgeGraph"], str]


@dataclass(frozen=True)
class QuestionType:
    """One question type.

    Attributes:
        code: the short upper-case code records carry in ``type`` (``"SH"``, ``"DS"``, ...).
        name: the logic's name (``"Disjunctive Syllogism"``), shown in reviews and exports.
        formula: the rule in symbols (paper section 3), for the review's decomposition.
        words: the rule in plain words, for the review's decomposition.
        answer_kind: one of :data:`ANSWER_KINDS`; fixes the record's ``options``.
        matcher: finds instances of the type in a graph index.
        template: words a match as a question (the ``template`` generator).
        logic_check: re-derives a record's answer from the graph (the ``logic`` verify check).
        task: one line saying what the LLM generator should write.
        prompt: the type-specific body of the LLM prompt (None: the type has no LLM prompt).
        no_match_reason: why a build may fall short of ``per_type`` questions of this type.
        description: a short description (a plugin's own words; exports show ``name``).
        multi_hop: whether the type counts as multi-hop (MH) in the recovery-rate split.
        instruction: the answer-form instruction appended to the question in the ``answer-form``
            prompt (:mod:`kg_qgen.prompt_form`): short, generic, never naming the answer or the
            options; empty: :data:`kg_qgen.prompt_form.DEFAULT_INSTRUCTIONS` of ``answer_kind``.
    """

    code: str
    name: str
    formula: str
    words: str
    answer_kind: str
    matcher: Matcher
    template: TemplateBuilder
    logic_check: LogicCheckFn
    task: str = ""
    prompt: PromptBuilder | None = None
    no_match_reason: str = ""
    description: str = ""
    multi_hop: bool = True
    instruction: str = ""

    def __post_init__(self) -> None:
        if not self.code or self.code != self.code.strip().upper():
            raise ValueError(f"question type code must be non-empty upper case, got {self.code!r}")
        if self.answer_kind not in ANSWER_KINDS:
            raise ValueError(
                f"question type {self.code}: answer_kind {self.answer_kind!r} is not one of "
                f"{', '.join(ANSWER_KINDS)}"
            )


def _check_plugin(name: str, obj: Any) -> None:
    if not isinstance(obj, QuestionType):
        raise TypeError(f"question type plugin '{name}' is not a kg_qgen.qtypes.QuestionType")
    if obj.code.lower() != name.strip().lower():
        raise ValueError(f"question type plugin '{name}' carries code {obj.code!r}")


QUESTION_TYPE_REGISTRY: Registry[QuestionType] = Registry(
    "question type",
    ENTRY_POINT_GROUP,
    {code: f"kg_qgen.builtin_types:{code}" for code in QUESTION_TYPES},
    check=_check_plugin,
)


def register_question_type(question_type: QuestionType) -> None:
    """Add (or replace) a type at run time, as a plugin's own code would; it takes precedence."""
    QUESTION_TYPE_REGISTRY.register(question_type.code, question_type)


def question_type_codes() -> list[str]:
    """Every registered code: the built-ins in :data:`QUESTION_TYPES` order, then the rest."""
    return [name.upper() for name in QUESTION_TYPE_REGISTRY.names()]


def get_question_type(code: str) -> QuestionType:
    """The type registered as ``code``; an unknown code raises ``UnknownNameError``.

    Codes are exact: records carry them upper-case and the matchers seed their RNG with them, so
    ``"hs"`` is refused ("did you mean 'HS'?") rather than read as ``"HS"``.
    """
    if isinstance(code, str) and code == code.strip().upper():
        try:
            return QUESTION_TYPE_REGISTRY.get(code)
        except UnknownNameError:
            pass
    known = question_type_codes()
    close = difflib.get_close_matches(str(code).strip().upper(), known, n=1)
    hint = f" did you mean '{close[0]}'?" if close else ""
    raise UnknownNameError(f"unknown question type '{code}';{hint} Known: {', '.join(known)}")


def find_question_type(code: object) -> QuestionType | None:
    """The type whose code is exactly ``code`` (records carry upper-case codes), else None."""
    if not isinstance(code, str) or code != code.upper() or code not in QUESTION_TYPE_REGISTRY:
        return None
    return get_question_type(code)
