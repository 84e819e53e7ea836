"""How kg-qgen words its questions, and how the build chooses among wordings.

Job: the English of a question, never its content. Per-relation phrasing
(:mod:`~kg_qgen.wording.phrasing`), sentence style (:mod:`~kg_qgen.wording.style`), the DS and MT
question wordings (:mod:`~kg_qgen.wording.ds`, :mod:`~kg_qgen.wording.mt`), and the build's
wording step: each kept question's wording chosen among seeded draws for variety across the set
(:mod:`~kg_qgen.wording.variety`, :mod:`~kg_qgen.wording.build`).

Entry point: this module. Code outside the package imports what it needs from
``kg_qgen.wording`` only (the names in ``__all__``), never from a submodule.

May import: the standard library, :mod:`kg_qgen.checking` (the check interface),
:mod:`kg_qgen.graph`, :mod:`kg_qgen.match` (a match and DS clues), :mod:`kg_qgen.stats` (self-BLEU)
and :mod:`kg_qgen.textnorm`. Never :mod:`kg_qgen.verify`, :mod:`kg_qgen.llm`, :mod:`kg_qgen.generate`
or the pipeline: they import this package (the template generator, the LLM prompts, the style and
relation-label checks, the build), and the checks a drawn wording must pass are the caller's.
"""

from __future__ import annotations

from kg_qgen.wording.build import WordingSettings, choose_wordings
from kg_qgen.wording.ds import N_FRAMES as DS_FRAMES
from kg_qgen.wording.ds import clue_phrase, ds_question, elimination_clause
from kg_qgen.wording.mt import FRAMES as MT_FRAMES
from kg_qgen.wording.mt import mt_question
from kg_qgen.wording.phrasing import PHRASES, RelationPhrase, phrase_for
from kg_qgen.wording.style import capitalize_sentences, uncapitalized_sentences
from kg_qgen.wording.variety import (
    FRAME_CAP,
    Redraw,
    VarietyConfig,
    VarietyReport,
    revert_failing,
    vary_wordings,
)

__all__ = [
    "DS_FRAMES",
    "FRAME_CAP",
    "MT_FRAMES",
    "PHRASES",
    "Redraw",
    "RelationPhrase",
    "VarietyConfig",
    "VarietyReport",
    "WordingSettings",
    "capitalize_sentences",
    "choose_wordings",
    "clue_phrase",
    "ds_question",
    "elimination_clause",
    "mt_question",
    "phrase_for",
    "revert_failing",
    "uncapitalized_sentences",
    "vary_wordings",
]
