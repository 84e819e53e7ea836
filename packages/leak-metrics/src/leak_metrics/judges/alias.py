"""Deterministic, offline alias-aware judge (the default), written so that naming several
candidates, negating the gold or refusing cannot pass for a correct answer.

Normalisation is :mod:`leak_metrics.normalize` (accents, case, punctuation, articles, number
words). A *form* of the gold is the gold answer or one of its aliases; a *mention* of a text is an
occurrence of its normalised tokens as a contiguous run of whole words in the normalised response
(``Paris`` is mentioned in "It is Paris." but not in "Parisville"). Only the aliases passed count:
"association football" matches gold "soccer" only when it is listed as an alias. The *wrong
candidates* are the item's ``options`` (the candidates the question shows) other than the gold;
an option whose tokens equal a gold form is the gold. Where a wrong-candidate mention and a gold
mention overlap, the longer one is what the response names (gold ``York``, option ``New York``,
response "New York" names the wrong candidate only).

Entity answers, checked in this order; the first rule that fires gives the verdict:

1. Refusal: a refusal phrase outside the gold mentions ("don't know", "not sure", "no idea",
   "cannot answer/say/tell/determine/know/be sure", "unable to", "unsure", "not certain",
   "unclear", "unknown", "sorry", "no information", "impossible to say", "can't say") ->
   incorrect, even when a guess follows ("I'm not sure, maybe Paris").
2. No gold mention -> incorrect.
3. Wrong candidate: any wrong candidate mentioned next to the gold -> incorrect (this covers a
   hedge naming two or more options; it is strict on purpose: "Paris, not Lyon" also names a wrong
   candidate and is incorrect, so listing every option with or without "not" cannot win).
4. Negated gold: a negation (``not``, ``never``, ``neither``, ``nor``, also from ``n't``) before a
   gold mention in the same clause (no ``,.;:!?`` or line break between) with at most 3 words
   between ("The capital is not Paris.", "not France", "it isn't Paris", "did not move to Paris"),
   or a gold mention followed by "is/was not/never (the) correct/right/answer/true/it" ->
   incorrect.
5. Alternatives (with or without options): the gold mention is joined to another entity - a
   capitalised word, or a number when the gold is a number - only by commas, slashes or the words
   or/either/and/nor/maybe/perhaps/possibly, and its sentence contains or/either/maybe/perhaps/
   possibly/"one of" or a slash ("maybe France or Germany", "It is one of France, Germany or
   Spain.", "Paris/Lyon", "three or four") -> incorrect. "Paris, France." (no such word) stays
   correct.
6. Otherwise -> correct.

Yes/no answers (gold normalises to ``yes`` or ``no``; MT questions with options ``[yes, no]``):

1. A hedge between the two polarities - ``yes`` and ``no`` joined by or/and/nor/maybe/perhaps/
   possibly/either or a slash, at most 3 such words between ("yes or no", "Yes and no.",
   "maybe yes, maybe no", "yes/no") -> incorrect.
2. Otherwise the first ``yes``/``no`` word of the response decides ("No, he is not ..." -> no).
3. Without such a word, a hedge ("not sure", "do not know", "cannot", "unclear", "unknown",
   "sorry", ...) makes the response *incorrect* (no decision was given).
4. Otherwise a negation word (``not``, ``never``, ``neither``, ``nor``, also from ``n't``) means
   *no*, and a plain affirmative statement means *yes*.

A refusal is a decided verdict (incorrect), never unjudged. The rules are written over words and
punctuation only; no question text is parsed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leak_metrics.datatypes import JudgeItem, Verdict
from leak_metrics.judges.base import Judge
from leak_metrics.normalize import Token, contains_tokens, tokenize, tokenize_spans

_NEGATIONS = frozenset({"not", "never", "neither", "nor", "nobody", "nothing", "none"})
# Token runs that signal "no decision" for yes/no answers; checked before negations because they
# contain "not".
_HEDGES: tuple[tuple[str, ...], ...] = (
    ("not", "sure"),
    ("not", "know"),
    ("no", "idea"),
    ("cannot",),
    ("can", "not"),
    ("unclear",),
    ("unknown",),
    ("unsure",),
    ("sorry",),
    ("no", "information"),
    ("not", "certain"),
    ("impossible", "to", "say"),
)
# Refusals for entity answers: narrower than _HEDGES, because an entity answer may well contain
# "cannot" or "not know" in passing ("Paris; it cannot be anything else").
_REFUSALS: tuple[tuple[str, ...], ...] = (
    ("not", "know"),
    ("not", "sure"),
    ("not", "certain"),
    ("no", "idea"),
    ("unsure",),
    ("unclear",),
    ("unknown",),
    ("sorry",),
    ("unable", "to"),
    ("no", "information"),
    ("impossible", "to", "say"),
    *((verb, what) for verb in ("cannot",) for what in ("answer", "say", "tell", "determine")),
    ("cannot", "know"),
    ("cannot", "be", "sure"),
    *(("can", "not", what) for what in ("answer", "say", "tell", "determine", "know", "be")),
)
# Negations that scope over the next few words of the entity rule 4 ("no" is left out: "No, it
# is Paris" answers a leading question and does not negate Paris).
_ENTITY_NEGATIONS = frozenset({"not", "never", "neither", "nor"})
_NEGATION_REACH = 3  # words allowed between the negation and the gold ("not in fact Paris")
_POST_NEGATED = frozenset({"correct", "right", "answer", "true", "it"})
_DISJUNCTION_WORDS = frozenset({"or", "either", "maybe", "perhaps", "possibly"})
_LIST_CONNECTORS = frozenset({"or", "either", "and", "nor", "maybe", "perhaps", "possibly"})
# Capitalised words that are not entities (pronouns, sentence openers).
_NOT_ENTITIES = frozenset(
    {"i", "it", "he", "she", "we", "they", "you", "this", "that", "there", "my", "yes", "no"}
)
_CLAUSE_BREAK = frozenset(",.;:!?\n")
_SENTENCE_BREAK = frozenset(".;:!?\n")
_POLAR = frozenset({"yes", "no"})


def yes_no_decision(response: str) -> tuple[str | None, str]:
    """The response's yes/no decision (``"yes"``, ``"no"`` or ``None``) and why."""
    tokens = tokenize(response)
    for token in tokens:
        if token in ("yes", "no"):
            return token, f"first yes/no word is '{token}'"
    for hedge in _HEDGES:
        if contains_tokens(tokens, list(hedge)):
            return None, f"hedged ('{' '.join(hedge)}') without a yes/no decision"
    negation = next((t for t in tokens if t in _NEGATIONS), None)
    if negation is not None:
        return "no", f"no yes/no word; negation '{negation}' read as no"
    if not tokens:
        return None, "empty response"
    return "yes", "no yes/no word and no negation; affirmative statement read as yes"


class _Response:
    """A response's tokens with the raw text around them (for capitalisation and punctuation)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[Token] = tokenize_spans(text)
        self.words = [t.text for t in self.tokens]

    def gap(self, i: int) -> str:
        """The raw text between token ``i - 1`` and token ``i``."""
        start = self.tokens[i - 1].end if i > 0 else 0
        return self.text[start : self.tokens[i].start]

    def capitalised(self, i: int) -> bool:
        return self.text[self.tokens[i].start].isupper()

    def sentence(self, i: int) -> range:
        """Token indices of the sentence holding token ``i``."""
        lo = i
        while lo > 0 and not _SENTENCE_BREAK & set(self.gap(lo)):
            lo -= 1
        hi = i + 1
        while hi < len(self.tokens) and not _SENTENCE_BREAK & set(self.gap(hi)):
            hi += 1
        return range(lo, hi)


def _mentions(words: list[str], needle: list[str]) -> list[tuple[int, int]]:
    width = len(needle)
    if not width:
        return []
    return [(i, i + width) for i in range(len(words) - width + 1) if words[i : i + width] == needle]


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """``span`` lies within ``other`` and is shorter (the longer mention wins)."""
    return other[0] <= span[0] and span[1] <= other[1] and span != other


def yes_no_hedge(response: str) -> str | None:
    """The hedge between yes and no ("yes or no", "maybe yes, maybe no", "yes/no"), if any."""
    parsed = _Response(response)
    polar = [i for i, w in enumerate(parsed.words) if w in _POLAR]
    for a, b in itertools.pairwise(polar):
        if parsed.words[a] == parsed.words[b] or b - a - 1 > _NEGATION_REACH:
            continue
        between = parsed.words[a + 1 : b]
        gaps = "".join(parsed.gap(k) for k in range(a + 1, b + 1))
        if all(w in _LIST_CONNECTORS for w in between) and (between or "/" in gaps):
            return parsed.text[parsed.tokens[a].start : parsed.tokens[b].end]
    return None


@dataclass(frozen=True)
class AliasJudgeConfig:
    """Settings of the alias judge.

    yes_no_rule: apply the yes/no rule when the gold answer is yes/no (default True).
    """

    yes_no_rule: bool = True


class AliasJudge(Judge):
    """Normalised gold-or-alias mention with hedge, negation and refusal rules; see the module
    docstring for the exact rules."""

    name = "alias"
    config_cls = AliasJudgeConfig

    def __init__(self, config: AliasJudgeConfig | None = None) -> None:
        self.config = config or AliasJudgeConfig()

    def __repr__(self) -> str:
        return f"AliasJudge({self.config})"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "yes_no_rule": self.config.yes_no_rule}

    def _verdict(self, item: JudgeItem, correct: bool, reason: str) -> Verdict:
        return Verdict(correct, reason, self.name, item.id)

    def judge_one(self, item: JudgeItem) -> Verdict:
        gold_tokens = tokenize(item.answer)
        if self.config.yes_no_rule and gold_tokens in (["yes"], ["no"]):
            hedge = yes_no_hedge(item.response)
            if hedge is not None:
                return self._verdict(item, False, f"hedges between yes and no ('{hedge}')")
            decision, why = yes_no_decision(item.response)
            correct = decision == gold_tokens[0]
            return self._verdict(item, correct, f"{why}; gold is '{gold_tokens[0]}'")
        return self._judge_entity(item)

    def _judge_entity(self, item: JudgeItem) -> Verdict:
        response = _Response(item.response)
        words = response.words
        forms = [(form, tokenize(form)) for form in (item.answer, *item.aliases)]
        if not any(tokens for _, tokens in forms):
            # A gold answer made only of articles ("The") must still be matchable.
            haystack = tokenize(item.response, drop_articles=False)
            for form in (item.answer, *item.aliases):
                if contains_tokens(haystack, tokenize(form, drop_articles=False)):
                    return self._verdict(item, True, f"contains '{form}'")
            return self._verdict(item, False, f"none of {len(forms)} answer forms found")
        gold_forms = [tokens for _, tokens in forms if tokens]
        wrong = [
            (option, tokens)
            for option in item.options
            if (tokens := tokenize(option)) and tokens not in gold_forms
        ]
        gold_spans = [(span, form) for form, tokens in forms for span in _mentions(words, tokens)]
        wrong_spans = [(span, opt) for opt, tokens in wrong for span in _mentions(words, tokens)]
        gold_hits = [
            (s, f) for s, f in gold_spans if not any(_inside(s, w) for w, _ in wrong_spans)
        ]
        wrong_hits = [
            (s, o) for s, o in wrong_spans if not any(_inside(s, g) for g, _ in gold_spans)
        ]
        gold_positions = {k for (lo, hi), _ in gold_hits for k in range(lo, hi)}

        refusal = self._refusal(words, gold_positions)
        if refusal is not None:
            return self._verdict(item, False, f"refusal or hedge ('{refusal}')")
        if not gold_hits:
            if wrong_hits:
                return self._verdict(item, False, f"names wrong candidate '{wrong_hits[0][1]}'")
            return self._verdict(item, False, f"none of {len(forms)} answer forms found")
        first_form = gold_hits[0][1]
        if wrong_hits:
            named = ", ".join(dict.fromkeys(o for _, o in wrong_hits))
            return self._verdict(
                item, False, f"names wrong candidate(s) '{named}' next to gold '{first_form}'"
            )
        for span, form in gold_hits:
            negation = self._negation(response, span)
            if negation is not None:
                return self._verdict(item, False, f"negates the gold '{form}' ('{negation}')")
        numeric = all(t.isdigit() for t in gold_forms[0])
        for span, form in gold_hits:
            other = self._alternative(response, span, gold_positions, numeric)
            if other is not None:
                return self._verdict(
                    item, False, f"lists the gold '{form}' among alternatives ('{other}')"
                )
        return self._verdict(item, True, f"contains '{first_form}'")

    @staticmethod
    def _refusal(words: list[str], gold_positions: set[int]) -> str | None:
        outside = [w if k not in gold_positions else "\0" for k, w in enumerate(words)]
        for phrase in _REFUSALS:
            if contains_tokens(outside, list(phrase)):
                return " ".join(phrase)
        return None

    @staticmethod
    def _negation(response: _Response, span: tuple[int, int]) -> str | None:
        lo, hi = span
        words = response.words
        k = lo
        while k > 0 and lo - k <= _NEGATION_REACH:
            if _CLAUSE_BREAK & set(response.gap(k)):
                break
            k -= 1
            if words[k] in _ENTITY_NEGATIONS:
                return " ".join(words[k:hi])
        after = words[hi : hi + 4]
        if (
            len(after) >= 3
            and after[0] in ("is", "was", "s")
            and after[1] in ("not", "never")
            and after[2] in _POST_NEGATED
        ):
            return " ".join(words[lo : hi + 3])
        return None

    @staticmethod
    def _alternative(
        response: _Response, span: tuple[int, int], gold_positions: set[int], numeric: bool
    ) -> str | None:
        words = response.words
        sentence = response.sentence(span[0])
        sentence_words = [words[k] for k in sentence]
        disjunctive = (
            bool(_DISJUNCTION_WORDS & set(sentence_words))
            or contains_tokens(sentence_words, ["one", "of"])
            or any("/" in response.gap(k) for k in sentence if k > sentence.start)
        )

        def entity(k: int) -> bool:
            if k in gold_positions or words[k] in _NOT_ENTITIES:
                return False
            return response.capitalised(k) or (numeric and words[k].isdigit())

        # Walk right from the mention's end, then left from its start, over connectors; a
        # disjunction met on the way counts even across a sentence end ("Paris. Or Lyon?").
        for step, first in ((1, span[1]), (-1, span[0] - 1)):
            k = first
            separated = False
            saw_disjunction = disjunctive
            while 0 <= k < len(words):
                gap = response.gap(k if step == 1 else k + 1)
                if _SENTENCE_BREAK & set(gap) and words[k] not in _DISJUNCTION_WORDS:
                    break
                separated = separated or "," in gap or "/" in gap
                saw_disjunction = saw_disjunction or "/" in gap
                if words[k] in _LIST_CONNECTORS:
                    separated = True
                    saw_disjunction = saw_disjunction or words[k] in _DISJUNCTION_WORDS
                    k += step
                    continue
                if separated and saw_disjunction and entity(k):
                    return response.text[response.tokens[k].start : response.tokens[k].end]
                break
        return None

    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        return [self.judge_one(item) for item in items]
