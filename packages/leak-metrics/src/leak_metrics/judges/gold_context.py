"""Where the alias judge finds the gold and the wrong options in a committed answer, and the
context rules it applies around the gold (rules 6-11 of ``alias.py``, in that order)."""

from __future__ import annotations

from leak_metrics.datatypes import JudgeItem
from leak_metrics.judges.clause_rules import (
    concessive_only,
    denied_as_value,
    other_citizen_first,
    other_value_after,
)
from leak_metrics.judges.demonyms import all_adjective_words, demonyms_of, gold_variants
from leak_metrics.judges.entity_rules import (
    Span,
    first_other_name,
    gold_mentions,
    other_names,
    predicate_start,
)
from leak_metrics.judges.list_rules import (
    asked_noun,
    contradiction,
    denies_value,
    joined_list,
    list_partners,
    multi_valued,
    several_values,
)
from leak_metrics.judges.mention_rules import (
    agent_nouns,
    describes_person,
    filter_mentions,
    noun_plurals,
)
from leak_metrics.judges.option_list_rules import option_description
from leak_metrics.judges.option_rules import (
    between_pair,
    gold_in_longer_name,
    non_option_pick,
    other_relation_subject,
    rejected,
)
from leak_metrics.judges.owner_rules import gold_owns_name, possessive_owner
from leak_metrics.judges.placement_rules import (
    abbreviation_end,
    agent_adjective,
    born_adjective,
    connection_end,
    contrast_rejected,
    located_mentions,
    other_owner_value,
    ruled_out,
    unnamed_subject_adjective,
)
from leak_metrics.judges.region_rules import (
    language_name,
    larger_region,
    longer_adjective,
    organisation_name,
    subject_styled,
)
from leak_metrics.judges.relation_rules import (
    COPULAS,
    echoed_relation,
    hint_owner,
    kind_mismatch,
    other_relation_value,
    premise_relation_value,
)
from leak_metrics.judges.scope_rules import conditioned, in_purpose
from leak_metrics.judges.sentence_rules import (
    after_gold_rules,
    foreign_qualified,
    other_nationality_after,
    possessive_owners,
)
from leak_metrics.judges.shared_rules import second_country
from leak_metrics.judges.slot_rules import (
    asks_citizenship,
    asks_nationality,
    asks_person_role,
    citizenship_slot,
    in_other_role,
    names_subject,
    role_mismatch,
)
from leak_metrics.judges.subject_rules import address_chain, complement_mentions
from leak_metrics.judges.unreal_rules import fictional_subject, language_use, quoted_rejection
from leak_metrics.judges.value_rules import (
    corrected_answer,
    narrowed_answer,
    nation_phrase,
    possessive_place,
    thing_kind,
)
from leak_metrics.normalize import tokenize

# Kinds of answer a question may ask for that a gold's adjective may then describe ("Which
# continent ...?" -> "the European continent").
KIND_HEADS = frozenset({"continent", "continents", "landmass"})


def _mentions(words: list[str], needle: list[str]) -> list[tuple[int, int]]:
    width = len(needle)
    if not width:
        return []
    return [(i, i + width) for i in range(len(words) - width + 1) if words[i : i + width] == needle]


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """``span`` lies within ``other`` and is shorter (the longer mention wins)."""
    return other[0] <= span[0] and span[1] <= other[1] and span != other


def mention_hits(
    item: JudgeItem,
    span: Span,
    words: list[str],
    forms: list[tuple[str, list[str]]],
    gold_forms: list[list[str]],
    question_words: set[str],
    adjectives: list[list[str]],
) -> tuple[list[tuple[tuple[int, int], str]], list[tuple[tuple[int, int], str]], list[str]]:
    """Where the gold (any form, variant or demonym) and the wrong options are named, each
    with the form or option it names; a mention inside a longer one of the other kind is not
    counted."""
    wrong = [
        (option, tokens)
        for option in item.options
        if (tokens := tokenize(option)) and tokens not in gold_forms
    ]
    form_names = {tuple(t): f for f, t in forms if t}
    styles = gold_variants(gold_forms, question_words | possessive_owners(span))  # v12
    variants = styles + agent_nouns(forms) + noun_plurals(forms)  # v13: "Cuban pesos"
    named, mixed, other_places = filter_mentions(
        span,
        gold_mentions(span, gold_forms + variants, adjectives, KIND_HEADS & question_words),
        item.answer,
        forms,
        gold_forms,
    )
    named = [m for m in named if not foreign_qualified(span, m, styles, adjectives)]
    # An adjective on a person answers only a person's citizenship; for a thing's country it is
    # some person's nationality ("a monument to Gustave Eiffel, a French engineer"). A person's
    # origin ("a player from the United States") answers only a question about the person
    # (citizenship, birth, death), not one about a thing of theirs.
    if not asks_nationality(item.question):
        origins = asks_person_role(item.question) is None
        named = [m for m in named if not describes_person(span, *m, adjectives, origins)]
    named = [m for m in named if not language_use(span, *m, adjectives)]
    named = _placed_adjectives(item, span, named, adjectives, gold_forms, question_words)
    if asks_citizenship(item.question, gold_forms):  # rules v8: "X is a British monarch"
        extra = complement_mentions(span, adjectives, predicate_start(span), question_words)
        named = sorted(set(named) | set(extra))
    named = _inside_larger_names(item, span, named, adjectives, gold_forms, question_words)
    gold_spans = [(s, form_names.get(tuple(words[s[0] : s[1]]), span.raw(*s))) for s in named]
    wrong_spans = [(span_, opt) for opt, tokens in wrong for span_ in _mentions(words, tokens)]
    wrong_spans += _option_adjectives(span, wrong)
    gold_hits = [(s, f) for s, f in gold_spans if not any(_inside(s, w) for w, _ in wrong_spans)]
    # rules v9: "the United Kingdom (UK/GB)": abbreviations of the gold, no alternatives
    spans = {s for s, _ in gold_hits}
    gold_hits = [((lo, abbreviation_end(span, lo, hi, spans)), f) for (lo, hi), f in gold_hits]
    wrong_hits = [
        (s, o)
        for s, o in wrong_spans
        if not any(_inside(s, g) for g, _ in gold_spans) and not rejected(span, s[0])
    ]
    if item.options:  # rules v9: ", while the country of Italy is Italy" names no pick
        golds = [g for g, _ in gold_hits]
        wrong_hits = [(s, o) for s, o in wrong_hits if not _no_pick(span, s, golds)]
    if item.options and all(words[lo:hi] in adjectives for (lo, hi), _ in gold_hits):
        gold_hits = []  # rules v11: an option is picked by its name, not by its adjective alone
    wrong_hits += [((0, 0), place) for place in other_places]  # "Republic of China" for China
    return gold_hits, wrong_hits, mixed


def _placed_adjectives(
    item: JudgeItem,
    span: Span,
    named: list[tuple[int, int]],
    adjectives: list[list[str]],
    gold_forms: list[list[str]],
    question_words: set[str],
) -> list[tuple[int, int]]:
    """Rules v9 (:mod:`placement_rules`): a place of the gold by its adjective ("located in the
    Egyptian desert"; with no options: an options answer must pick the option itself) counts;
    an agent's nationality ("a car built by the American racer") and, unless the question asks
    about birth, a birthplace ("a European-born musician") do not."""
    if not item.options:
        named = sorted(set(named) | set(located_mentions(span, adjectives)))
    named = [m for m in named if not agent_adjective(span, *m, adjectives)]
    if not {"born", "birth", "birthplace"} & question_words:
        named = [m for m in named if not born_adjective(span, *m, adjectives)]
    if asks_citizenship(item.question, gold_forms):  # "The American heroes of ... were"
        verb = predicate_start(span)
        named = [
            m
            for m in named
            if not unnamed_subject_adjective(span, *m, adjectives, item.question, verb)
        ]
    return named


def _option_adjectives(
    span: Span, wrong: list[tuple[str, list[str]]]
) -> list[tuple[tuple[int, int], str]]:
    """Rules v11: a wrong option named by its adjective ("the Italian nationality") as the gold
    is (:func:`gold_mentions`), so that it is named beside the gold (rule 3)."""
    return [
        (found, option)
        for option, tokens in wrong
        for found in gold_mentions(span, [], demonyms_of([tokens]))
    ]


def _inside_larger_names(
    item: JudgeItem,
    span: Span,
    named: list[tuple[int, int]],
    adjectives: list[list[str]],
    gold_forms: list[list[str]],
    question_words: set[str],
) -> list[tuple[int, int]]:
    """Rules v11 (:mod:`region_rules`): no mention inside an organisation's, a language's or
    another place's name, nor only in larger regions named after the gold; "<gold name> of <the subject>" is a mention."""
    regions = [m for m in named if larger_region(span, *m, gold_forms, question_words)]
    if len(regions) == len(named):  # the subject placed *only* in a region named after the gold
        named = []
    named = [
        (lo, hi)
        for lo, hi in named
        if not organisation_name(span, hi)
        and not language_name(span, lo, hi, adjectives)
        and not longer_adjective(span, lo, hi, adjectives)
    ]
    return sorted(set(named) | set(subject_styled(span, gold_forms, item.question)))


def _no_pick(span: Span, wrong: tuple[int, int], gold: list[tuple[int, int]]) -> bool:
    """Rules v9: a wrong option named as another owner's value after ", while" or rejected by
    "not <...> of <option>, but ..." is no pick of it."""
    return other_owner_value(span, wrong, gold) or contrast_rejected(span, *wrong)


def _candidates(
    item: JudgeItem,
    span: Span,
    others: list[tuple[int, int]],
    hits: list[tuple[int, int]],
    several: bool,
) -> list[tuple[int, int]]:
    """The other names that may be another answer committed to first (rule 6)."""
    # for a relation with several values, the other items of the gold's list are answers too
    partners = list_partners(span, others, hits) if several else set()
    # a name in a relation the question does not ask ("born in Tupelo" for a place of death)
    # is not an answer either; nor is an owner ("The UK's currency is ..."): it says whose
    # value is given, not another value
    runs = span.name_runs()
    return [
        o
        for o in others
        if o not in partners
        and not address_chain(span, o, runs, hits)  # rules v8: "the Colosseum, Rome, Italy"
        and not in_other_role(span, o[0], item.question)
        and not possessive_owner(span, o[1])
    ]


def _pick_rules(
    item: JudgeItem,
    span: Span,
    hits: list[tuple[int, int]],
    gold_forms: list[list[str]],
    question_words: set[str],
) -> list[tuple[str, str | None]]:
    """Round six's rules (:mod:`option_rules`, :mod:`shared_rules`): what makes the answer no
    pick of the gold; the longer-name and other-relation rules only where options are shown."""
    options = bool(item.options)
    return [
        ("names the gold as one of a pair", between_pair(span, hits)),
        ("names the gold as an end of a connection", connection_end(span, hits, question_words)),
        (
            "names another country beside the shared value",
            None if options else second_country(span, hits, gold_forms, question_words),
        ),
        (
            "names the gold only inside a longer name",
            gold_in_longer_name(span, hits, gold_forms) if options else None,
        ),
        (
            "picks a name that is no option" if options else "gives another name as the answer",
            non_option_pick(span, hits, bare=not options),
        ),
        (
            "calls the gold another relation's value",
            other_relation_subject(span, hits, gold_forms, item.question) if options else None,
        ),
        (  # rules v13
            "describes the options instead of picking one",
            option_description(span, hits) if options else None,
        ),
    ]


def _scope_rules(
    span: Span, hits: list[tuple[int, int]], question_words: set[str]
) -> list[tuple[str, str | None]]:
    """Every gold mention inside a condition, or (rules v8) inside the opening purpose clause
    when the question itself names the gold (a purpose may presuppose a new value)."""
    conditions = conditioned(span, hits)
    purposes = [
        in_purpose(span, lo) if set(span.words[lo:hi]) <= question_words else None
        for lo, hi in hits
    ]
    return [
        ("names the gold only inside a condition", conditions[0] if all(conditions) else None),
        ("names the gold only in an opening purpose", purposes[0] if all(purposes) else None),
        ("names the gold only in what is ruled out", ruled_out(span, hits)),
    ]


def _relation_rules(
    item: JudgeItem, span: Span, hits: list[tuple[int, int]], question_words: set[str]
) -> list[tuple[str, str | None]]:
    """Rules 9b (:mod:`relation_rules`): the gold as another relation's value or owner; the
    premise-relation rule (rules v8) only where options are shown."""
    question = item.question
    return [
        (
            "names the gold as the value of another relation",
            other_relation_value(span, hits, question_words),
        ),
        ("calls the value a unit of the gold", kind_mismatch(span, hits, question_words)),
        ("names the gold only in another relation", echoed_relation(span, hits, question)),
        (
            "names the gold as the value of another relation",
            premise_relation_value(span, hits, question) if item.options else None,
        ),
        ("names the gold as the owner of the question's hint", hint_owner(span, hits, question)),
    ]


def _clause_rules(
    item: JudgeItem,
    span: Span,
    hits: list[tuple[int, int]],
    gold_forms: list[list[str]],
    question_words: set[str],
    adjectives: list[list[str]],
) -> list[tuple[str, str | None]]:
    """Round-ten rules (:mod:`clause_rules`, rules v10)."""
    other_citizen = other_value = second_nationality = None
    if not item.options and asks_citizenship(item.question, gold_forms):
        gold_adjectives = {w for a in adjectives for w in a}
        other_citizen = other_citizen_first(span, hits, gold_adjectives, all_adjective_words())
        others = other_names(span, question_words, hits, all_adjective_words())
        other_value = other_value_after(span, hits, others)
        second_nationality = other_nationality_after(
            span, hits, gold_adjectives, all_adjective_words()
        )
    return [
        ("names the gold only in a concessive clause", concessive_only(span, hits)),
        ("commits to another nationality before the gold", other_citizen),
        ("states another value of the citizenship after the gold", other_value),
        ("gives the subject another nationality after the gold", second_nationality),
        ("denies that the gold is the asked value", denied_as_value(span, hits, question_words)),
    ]


def _stated_value(span: Span, hits: list[tuple[int, int]]) -> bool:
    """Rules v11 (:mod:`value_rules`): a gold mention after "<copula> the <nation noun> of"
    ("is the Republic of Cuba") or narrowing "the answer" ("..., specifically India")."""
    for lo, _ in hits:
        start = nation_phrase(span, lo)
        if start and span.words[start - 1] in COPULAS and span.tight(start):
            return True
        if narrowed_answer(span, lo):
            return True
    return False


def context_rule(
    item: JudgeItem,
    span: Span,
    hits: list[tuple[int, int]],
    gold_forms: list[list[str]],
    question_words: set[str],
    adjectives: list[list[str]],
) -> str | None:
    """The first rule about the words around the gold that the response breaks, with the words
    that break it, or None."""
    others = other_names(span, question_words, hits, all_adjective_words())
    several = multi_valued(question_words)
    first_other = first_other_name(span, _candidates(item, span, others, hits, several), hits)
    citizenship = None
    owned = possessive_place(span, hits, question_words)  # rules v11: "<gold>'s People's ..."
    # With options shown, the option named is the commitment (rules 2-3), not the slot.
    if (
        not item.options
        and asks_citizenship(item.question, gold_forms)
        and not citizenship_slot(span, hits, {tuple(a) for a in adjectives}, question_words)
        and not (owned or _stated_value(span, hits))
    ):
        citizenship = span.raw(*hits[0])
    subjectless = None
    if not names_subject(span, item.question, hits) and nation_phrase(span, hits[0][0]) != 0:
        subjectless = span.raw(*hits[0])
    for rule, found in (
        ("calls the subject fictional", fictional_subject(span, hits)),
        *_clause_rules(item, span, hits, gold_forms, question_words, adjectives),
        *_scope_rules(span, hits, question_words),
        ("names the gold only in a quotation called wrong", quoted_rejection(span, hits)),
        ("commits to another answer before the gold", first_other),
        *_pick_rules(item, span, hits, gold_forms, question_words),
        (
            "names the gold only as the owner of another name",
            None if owned else gold_owns_name(span, hits),
        ),
        ("denies that the asked value exists", denies_value(span, hits, question_words)),
        ("contradicts the gold", contradiction(span, others, hits, question_words)),
        ("takes the gold back for another answer", corrected_answer(span, hits)),
        *after_gold_rules(span, hits, others, several, question_words),
        (
            "calls the asked value a thing of another kind",
            thing_kind(span, hits, adjectives, question_words),
        ),
        ("lists the gold with another name", joined_list(span, others, hits, several)),
        (
            "announces several values",
            None if several else several_values(span, hits, asked_noun(item.question)),
        ),
        ("names the gold in another role", role_mismatch(span, hits, item.question)),
        *_relation_rules(item, span, hits, question_words),
        ("names the gold but not as the subject's citizenship", citizenship),
        ("names the gold only in a phrase that is not about the subject", subjectless),
    ):
        if found is not None:
            return f"{rule} ('{found}')"
    return None
