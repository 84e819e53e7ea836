"""The seven built-in question types, each registered once (see :mod:`kg_qgen.qtypes`).

Every part of a type keeps living in the module that has always held it (the matchers in
:mod:`kg_qgen.match`, the templates in :mod:`kg_qgen.generate.template`, the LLM prompts in
:mod:`kg_qgen.llm.prompts`, the logic checks in :mod:`kg_qgen.verify.logic`, the rules in
:mod:`kg_qgen.review.decompose`); this module only ties them together under the type's code.
:mod:`kg_qgen.qtypes` references these objects lazily (``"kg_qgen.builtin_types:SH"``), so the
registry imports none of them until a type is looked up.
"""

from __future__ import annotations

from kg_qgen.generate import template
from kg_qgen.llm import prompts
from kg_qgen.match import cc, ds, hs, ll, mp, mt, sh
from kg_qgen.prompt_form import DEFAULT_INSTRUCTIONS
from kg_qgen.qtypes import LogicCheckFn, Matcher, PromptBuilder, QuestionType, TemplateBuilder
from kg_qgen.review.decompose import LOGIC_RULES
from kg_qgen.verify import ds_logic, logic, mt_logic

__all__ = ["CC", "DS", "HS", "LL", "MP", "MT", "SH"]


# Why a build may fall short of per_type questions of a type (printed with the shortfall).
NO_MATCH_REASON = {
    "SH": "the graph has no fact with a unique object for its (subject, relation)",
    "HS": "few two-hop chains (o1 = s2) with unique objects exist in the graph",
    "MP": (
        "few two-hop chains whose relation pair has a rule (kg_qgen.match.mp.RULES) fitting the "
        "subject's class"
    ),
    "MT": (
        "few two-hop chains (both hops single-valued) whose bridge another chain of the same "
        "relation pair, with another second-hop value, can take as distractor"
    ),
    "LL": "few facts whose subject has an alias that identifies it",
    "CC": "few (relation, object) pairs shared by two distinct subjects",
    "DS": (
        "few targets with enough options of the gold's class that other facts of the graph "
        "rule out one by one (a clue that fits exactly one option each)"
    ),
}

# The answer-form instruction of the built-ins, by answer kind (kg_qgen.prompt_form; chosen by
# measurement on the default model: kg-qgen README, "Prompt forms").
INSTRUCTIONS = dict(DEFAULT_INSTRUCTIONS)


def _builtin(
    code: str,
    answer_kind: str,
    matcher: Matcher,
    template_builder: TemplateBuilder,
    logic_check: LogicCheckFn,
    prompt: PromptBuilder,
    *,
    multi_hop: bool = True,
) -> QuestionType:
    """The built-in ``code``: its parts plus the words the other modules' tables hold for it."""
    rule = LOGIC_RULES[code]
    return QuestionType(
        code=code,
        name=rule.name,
        formula=rule.formula,
        words=rule.words,
        answer_kind=answer_kind,
        matcher=matcher,
        template=template_builder,
        logic_check=logic_check,
        task=prompts.TYPE_TASKS[code],
        prompt=prompt,
        no_match_reason=NO_MATCH_REASON[code],
        description=rule.name,  # exports show the name (kg_qgen.export.type_name): one source
        multi_hop=multi_hop,
        instruction=INSTRUCTIONS[answer_kind],
    )


SH = _builtin("SH", "open", sh.find, template._sh, logic._sh, prompts._sh, multi_hop=False)
HS = _builtin("HS", "open", hs.find, template._hs, logic._hs, prompts._hs)
MP = _builtin("MP", "open", mp.find, template._mp, logic._mp, prompts._mp)
LL = _builtin("LL", "open", ll.find, template._ll, logic._ll, prompts._ll)
CC = _builtin("CC", "open", cc.find, template._cc, logic._cc, prompts._cc)
DS = _builtin("DS", "options", ds.find, template._ds, ds_logic.ds_problem, prompts._ds)
MT = _builtin("MT", "options", mt.find, template._mt, mt_logic.check_mt, prompts._mt)
