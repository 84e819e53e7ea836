"""Deterministic, offline alias-aware judge (the default): it judges the answer a response
*commits to*, so that naming the gold somewhere, naming several candidates, negating the gold or
refusing cannot pass for a correct answer.

**The committed answer.** Only the response's first answer sentence counts
(:func:`leak_metrics.committed_answer`, the stop rule of :mod:`answer_span`): "The currency of
Ontario is the US dollar. The specific currency is the Canadian dollar." commits to the US dollar.
A first sentence that is a lead-in about answering ("That is an interesting question.", "To
determine this, we need to examine ...": :func:`answer_span.is_lead_in`; at most two) and names
nothing (no gold, no other name) passes the commitment to the next sentence; the stop rule runs
past such sentences too, so a decoder stopped by it always has the sentence judged here
(:func:`answer_span.split_lead_in` gives the two parts).

Normalisation is :mod:`leak_metrics.normalize` (accents, case, punctuation, articles, number
words). A *form* of the gold is the gold answer or one of its aliases, plus two surface variants of
an "<adjective> <noun>" gold ("Jamaica dollar" for "Jamaican dollar"; "the krona" for "Swedish
krona" when the question names Sweden). A *mention* is an occurrence of a form's tokens as a run
of whole words, named *as itself* (:func:`entity_rules.gold_mentions`): not inside a larger name
("South Africa" is not "Africa", "North America" not alias "America", "United States of Fidel"
not "United States"), while "Kingdom of Italy", "East Asia" (a compass part that is no place of
its own), "Australian English" and "U.S. President" keep the gold. A gold country or continent is
also mentioned by its adjective (``data/demonyms.tsv``) when the adjective describes a place or a
person ("the German city of ...", "a French politician", "a prominent American abolitionist" by
the noun's ending, "a proud American and ...", "both Australian cities", "the European continent"
when a continent is asked, a cut-off "a city in the Austrian"), not another thing ("the Italian
car company", "American literature", "the European Union"). A lower-case gold is also named by its
plural and its agent noun ("writers", "footballer"). Mentions are then filtered
(:mod:`mention_rules`): a 1-2 character form counts only as a listed code of the entity written
in capitals ("US"; ``data/entity_codes.tsv``); a capitalised form is not matched by the same word
in lower case ("The rule states" is not "the States"); half of a hyphenated nationality
("Canadian-American") is not the country; the tail of another place's longer name ("Republic of
China") names that place, a wrong answer; the gold's name qualified by another kind of unit ("the
state of New York" for New York City) is not the gold; unless the question asks a person's
citizenship, a country's adjective on a person ("a French engineer", "an English footballer",
"an American professional basketball player") is that person's nationality, not the answer, and
unless it asks a person's citizenship, birth or death, nor is a place a person is from ("a player
from the United States" for where his sport originates). A gold name followed by "of" and its own
words again ("the United States of America of America") is a stutter of the gold. The
*wrong candidates* are the item's ``options`` other than the gold; where a wrong-candidate mention
and a gold mention overlap, the longer one is what the response names.

Entity answers, checked in this order on the committed answer; the first rule that fires gives
the verdict:

1. Refusal: a refusal phrase outside the gold mentions ("don't know", "not sure", "no idea",
   "cannot answer/say/tell/determine/know/be sure", "unable to", "unsure", "not certain",
   "unclear", "unknown", "sorry", "no information", "impossible to say", "can't say"; the answer
   called open to question: "debate(d)", "disputed", "ambiguous") ->
   incorrect, even when a guess follows ("I'm not sure, maybe Paris").
2. No gold mention -> incorrect.
3. Wrong candidate: any wrong candidate mentioned next to the gold -> incorrect ("Paris, not
   Lyon" too: listing every option with or without "not" cannot win).
4. Negated gold: ``not``/``never``/``neither``/``nor`` before a gold mention in its clause, at most
   3 words between (not "not only/just/merely"), "<gold> is/was not (the) correct/right/answer/
   true/it", or the gold opening what follows a colon after a negated copula ("The answer is not
   X's country of citizenship: France") -> incorrect.
5. Alternatives: the gold joined to another capitalised entity (or number, for a number gold) by
   commas, slashes or or/either/and/nor/maybe/perhaps/possibly in a sentence with a disjunction
   ("maybe France or Germany", "one of France, Germany or Spain", "Paris/Lyon") -> incorrect.
5b. Condition: every gold mention sits in a conditional clause (if/unless/whether/assuming/
    suppose/provided that/in the event that/on condition that/as long as, up to a comma, "then"
    or the sentence end: an echoed MT premise) -> incorrect (:mod:`scope_rules`).
6. Another answer first: a name that is neither the question's nor the gold's, not negated,
   opening the answer or standing in its predicate (after its first verb) before the first gold
   mention -> incorrect ("The United Kingdom is a sovereign country located in ... Australia").
   A place that leads to the gold through container words ("Salzburg, a city in Austria", "the
   Balkan region of Europe", "the United Kingdom, specifically ... London", "the Iberian
   Peninsula of Europe") or a short verbless apposition opening with an article or a renaming
   ("Dante Alighieri, a 13th-century Italian poet", "S Korea, officially known as the Republic
   of Korea"; not "Germany, next to France") is not another answer; nor is an opening name
   renamed as the question's subject ("Shaolin Chubu, also known as Shanghai and Beijing, are
   ..."), nor a possessive owner of a lowercase noun ("The UK's currency is ...",
   :mod:`owner_rules`).
6a. Owner: every gold mention owns another capitalised name ("the United States of America's
    National Basketball Association") -> incorrect (:mod:`owner_rules`).
6b. Denial: the answer denies that the asked value exists before naming the gold ("do not
    have a single citizenship country in common"), or says two subjects' values differ ("their
    occupations are distinct", "different countries"; not "different cultures", another thing)
    -> incorrect (:mod:`list_rules`).
7. Contradiction: after the gold, a contrast word (but, however, although, though, whereas,
   yet, instead) followed by another name, or by "also"/"another" -> incorrect.
8. List: the gold joined to another name by "and"/"&", or after mix/blend/combination/
   composed/consisting/including/multiple/several/such (as) in its clause ("a blend of Chinese
   and English") -> incorrect. For a multi-valued relation (occupation, language, genre, ...) a
   list joined by and/&/commas is an answer (and its other items are no "other answer", rule 6);
   only the blend/including markers count.
8b. Several values: for a relation with one value, the answer announces several of the asked
    noun before the gold ("The two countries ... are the United States of America (USA") ->
    incorrect.
9. Another role: the gold names where the subject was born, lives, is based or died when the
   question asks another of these relations or citizenship ("based in the United States of
   America" for a citizenship question; "born in ... Vienna" for a place of death) -> incorrect.
9b. Another relation (:mod:`relation_rules`): the gold is the copula's value for a subject
    phrase naming another relation ("Mao's official name is China"; but "The name of Putin's
    country is Russia" names the asked thing); the asked value called another kind of unit of
    the gold ("The country of citizenship of X is the former capital of the United Kingdom");
    the gold only as the owner of the question's hint restated ("Dublin is the capital of the
    United States" for "..., if whichever has Dublin as capital is not it?") -> incorrect.
10. Not the citizenship: for a citizenship question whose gold is a country (not a continent
    question), no gold mention sits in the citizenship slot (opening the answer; after a copula,
    "citizen of", "from", "a national (by-name) of", "citizenship in", or a copula's "(part) of"
    whose clause restates the subject, "both are of"; as the adjective of a person or of the
    subject's identity/heritage, "a former U.S. President", "his Dutch identity"; not inside a
    title, "the 41st President of the United States"; not as a modifier: "a United States
    state", "the USA's 14th state") -> incorrect; a hyphenated nationality with the gold as one
    half ("an Italian-American footballer ... a native of Italy") -> incorrect before rule 2.
11. Not about the subject: every gold mention sits in the subject phrase (before the first verb),
    after another name or as the argument of a relation the question does not ask ("The capital
    of the Republic of Poland is called Wo" for "Warsaw's country"), and the answer names nothing
    of the question -> incorrect.
12. Otherwise -> correct.

Round six (rules version 6) reads an option answer as an explicit pick (:mod:`option_rules`):
an option rejected right before it ("not Lyon", "rather than Lyon") is not named, so "It is
Paris, not Lyon" and "not Paris, Lyon" each pick one option (rule 3 sees only the options named
as picks; "Paris or Lyon" and a restated question still name two); an option picked by its place
("The correct option is 2") decides when no option is named; and, with options shown, the gold
inside a longer name ("the United Kingdom of the United Nations", "the United Kingdom of the
Netherlands", a cut-off "the United Kingdom of") or called another relation's value ("The United
Kingdom is the currency of Alan's country ...") is no pick. Checked with rule 6 (any question):
the gold as one end of "between A and B" (the choice restated); for a shared-value question
(common/share/same/both, no options) another country named beside the gold, by name or
adjective ("X is American, while Y is Canadian"; :mod:`shared_rules`); a subject called
fictional by the copula's complement (:mod:`unreal_rules`); the gold's adjective after a bare
"in" closing its phrase is a language ('"Bamberg" in German'), no mention; rule 9b also reads
the possessive unit ("The country of Liverpool is the UK's largest city").

Round seven (rules version 7): a gold with its abbreviation in parentheses is one mention, so
"the United States of America (US) and the United Kingdom" is a list (rule 8); rule 8b counts
up to two lowercase words between the count and the asked noun, whose compound head counts
("the two most prominent countries" for "Which citizenship country ..."); the gold's adjective
joined to "-speaking" is a language, no mention; the gold only inside a quotation called wrong
('"Europe, France" is incorrect') is no pick (:mod:`unreal_rules`, checked with rule 6); with
options shown, an explicit pick of a name that is no option ("The correct option is New York
City, the capital of ...") is no pick of the gold (:mod:`option_rules`); for a shared value,
"not (in) the same <asked noun>" says the values differ (rule 6b).

Round eight (rules version 8; :mod:`subject_rules`, :mod:`relation_rules`, :mod:`option_rules`):
"X is a British monarch", a possessive owning nothing, an address chain, an echo in "To
determine ...", a premise's relation, an office's title, "The answer is <other name>", "not in
<option>", "1.", "but ... also", "The Judo Cup", "the capital city of <gold>". Round nine (rules
version 9, the labelling guide's garbled-subject and demonym standard; :mod:`placement_rules`
lists each rule): the subject placed "in <gold>", "X's country of <gold>", an adjective place
("the Egyptian desert"), "-born", an agent's nationality, "ruled out", a conditional's
consequent, "(UK/GB)", "connects A to B", "not the capital of X, but rather ...". Round eleven
(v11): :mod:`region_rules` (larger names), :mod:`value_rules` (how the value is stated).

Yes/no answers (gold ``yes`` or ``no``, with or without the options ``yes``/``no``) are judged
against the question: see :mod:`yes_no`.
A refusal is a decided verdict (incorrect), never unjudged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from leak_metrics.datatypes import JudgeItem, Verdict
from leak_metrics.judges.answer_span import committed_answer, split_lead_in
from leak_metrics.judges.base import Judge
from leak_metrics.judges.demonyms import all_adjective_words, demonyms_of
from leak_metrics.judges.entity_rules import Span, other_names
from leak_metrics.judges.gold_context import context_rule, mention_hits
from leak_metrics.judges.mention_rules import mixed_with_gold
from leak_metrics.judges.option_rules import option_by_number
from leak_metrics.judges.scope_rules import negated_before_colon
from leak_metrics.judges.slot_rules import asks_citizenship
from leak_metrics.judges.yes_no import decide
from leak_metrics.normalize import Token, contains_tokens, tokenize, tokenize_spans

# Refusals for entity answers: narrower than the yes/no evasions, because an entity answer may
# contain "cannot" or "not know" in passing ("Paris; it cannot be anything else").
_REFUSALS: tuple[tuple[str, ...], ...] = (
    ("not", "know"),
    ("not", "sure"),
    ("not", "certain"),
    ("no", "idea"),
    ("unsure",),
    ("unclear",),
    ("unknown",),
    ("sorry",),
    # the answer called open to question ("... is a topic of debate", "disputed", "ambiguous")
    ("debate",),
    ("debated",),
    ("disputed",),
    ("ambiguous",),
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
_NEGATION_REACH = 3
_CONTRAST_RESET = frozenset(
    {"but", "rather", "instead"}
)  # words allowed between the negation and the gold ("not in fact Paris")
# "1" is "one" after number-word normalisation ("Paris is not the one ...")
# "not only the capital of Ireland": a negation that does not deny what follows
_NOT_ONLY = frozenset({"only", "just", "merely", "simply"})
_POST_NEGATED = frozenset({"correct", "right", "answer", "true", "it", "1"})
_DISJUNCTION_WORDS = frozenset({"or", "either", "maybe", "perhaps", "possibly"})
_LIST_CONNECTORS = frozenset({"or", "either", "and", "nor", "maybe", "perhaps", "possibly"})
# Capitalised words that are not entities (pronouns, sentence openers).
_NOT_ENTITIES = frozenset(
    {"i", "it", "he", "she", "we", "they", "you", "this", "that", "there", "my", "yes", "no"}
)
_NO_GOLD = "the committed answer does not name the gold"
_CLAUSE_BREAK = frozenset(",.;:!?\n")
_SENTENCE_BREAK = frozenset(".;:!?\n")


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


#: Bumped whenever a rule change can turn a verdict: stored verdicts of another version are
#: re-judged (``Judge.identity``). 1 = gold-or-alias mention; 2 = the committed answer (issue 25);
#: 3-13 = issue 35's rounds three to thirteen (the module docstring and the README list each).
RULES_VERSION = 13


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
        return {
            "name": self.name,
            "rules_version": RULES_VERSION,
            "yes_no_rule": self.config.yes_no_rule,
        }

    def _verdict(self, item: JudgeItem, correct: bool, reason: str) -> Verdict:
        return Verdict(correct, reason, self.name, item.id)

    def judge_one(self, item: JudgeItem) -> Verdict:
        gold_tokens = tokenize(item.answer)
        # a non-answer opening sentence passes the commitment to the next one (the stop rule
        # runs past it too, so a decoder never stops before the sentence judged here)
        lead, answer = split_lead_in(committed_answer(item.response))
        first = lead or answer
        if self.config.yes_no_rule and gold_tokens in (["yes"], ["no"]):
            decision, why = decide(item.question, first)
            if decision is None and lead:
                decision, why = decide(item.question, answer)
                why = f"after a lead-in sentence, {why}"
            correct = decision == gold_tokens[0]
            return self._verdict(item, correct, f"{why}; gold is '{gold_tokens[0]}'")
        verdict = self._judge_entity(item, first)
        # a lead-in that names something ("I think it is Lyon.") has committed to it
        if lead and verdict.reason == _NO_GOLD and _names_nothing(item, lead):
            second = self._judge_entity(item, answer)
            return self._verdict(item, bool(second.correct), f"after a lead-in, {second.reason}")
        return verdict

    def _judge_entity(self, item: JudgeItem, committed: str) -> Verdict:
        response = _Response(committed)
        words = response.words
        forms = [(form, tokenize(form)) for form in (item.answer, *item.aliases)]
        if not any(tokens for _, tokens in forms):
            return self._judge_articles_only(item, committed, len(forms))
        gold_forms = [tokens for _, tokens in forms if tokens]
        span = Span(committed, response.tokens)
        question_words = set(tokenize(item.question))
        adjectives = demonyms_of(gold_forms)
        gold_hits, wrong_hits, mixed = mention_hits(
            item, span, words, forms, gold_forms, question_words, adjectives
        )
        gold_positions = {k for (lo, hi), _ in gold_hits for k in range(lo, hi)}

        refusal = self._refusal(words, gold_positions)
        if refusal is not None:
            return self._verdict(item, False, f"refusal or hedge ('{refusal}')")
        if asks_citizenship(item.question, gold_forms):
            gold_words = {w for f in gold_forms + adjectives for w in f}
            mixed = mixed + [m for m in [mixed_with_gold(span, gold_words)] if m]
            if mixed:
                return self._verdict(item, False, f"names a mixed nationality ('{mixed[0]}')")
        if not gold_hits:
            picked = option_by_number(committed, item.options) if not wrong_hits else None
            if picked is not None:  # "The correct option is 2": a pick by place
                good = tokenize(picked) in gold_forms
                return self._verdict(item, good, f"picks option '{picked}' by its place")
            if wrong_hits:
                return self._verdict(item, False, f"names wrong candidate '{wrong_hits[0][1]}'")
            return self._verdict(item, False, _NO_GOLD)
        first_form = gold_hits[0][1]
        if wrong_hits:
            named_wrong = ", ".join(dict.fromkeys(o for _, o in wrong_hits))
            return self._verdict(
                item, False, f"names wrong candidate(s) '{named_wrong}' next to gold '{first_form}'"
            )
        for hit, form in gold_hits:
            negation = self._negation(response, hit)
            if negation is not None:
                return self._verdict(item, False, f"negates the gold '{form}' ('{negation}')")
        numeric = all(t.isdigit() for t in gold_forms[0])
        for hit, form in gold_hits:
            other = self._alternative(response, hit, gold_positions, numeric)
            if other is not None:
                return self._verdict(
                    item, False, f"lists the gold '{form}' among alternatives ('{other}')"
                )
        hits = [s for s, _ in gold_hits]
        broken = context_rule(item, span, hits, gold_forms, question_words, adjectives)
        if broken is not None:
            return self._verdict(item, False, broken)
        return self._verdict(item, True, f"committed answer names '{first_form}'")

    def _judge_articles_only(self, item: JudgeItem, committed: str, n_forms: int) -> Verdict:
        """A gold answer made only of articles ("The") must still be matchable."""
        haystack = tokenize(committed, drop_articles=False)
        for form in (item.answer, *item.aliases):
            if contains_tokens(haystack, tokenize(form, drop_articles=False)):
                return self._verdict(item, True, f"contains '{form}'")
        return self._verdict(item, False, f"none of {n_forms} answer forms found")

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
            if words[k] in _CONTRAST_RESET:
                break  # "not Kyoto but Tokyo": the negation is the other name's
            if words[k] in _ENTITY_NEGATIONS and words[k + 1] not in _NOT_ONLY:
                return " ".join(words[k:hi])
        colon = negated_before_colon(response, lo)
        if colon is not None:
            return colon
        after = words[hi : hi + 4]
        # "<gold> is not the answer", "<gold> is not the country of citizenship of X" (but
        # "Paris is not only ...")
        if (
            len(after) >= 2
            and after[0] in ("is", "was", "s", "are", "were")
            and after[1] in ("not", "never")
            and (len(after) < 3 or after[2] != "only")
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


def _names_nothing(item: JudgeItem, text: str) -> bool:
    """``text`` names nothing outside the question's own words (no other name at all)."""
    tokens = tokenize_spans(text)
    span = Span(text, tokens)
    return not other_names(span, set(tokenize(item.question)), [], all_adjective_words())
