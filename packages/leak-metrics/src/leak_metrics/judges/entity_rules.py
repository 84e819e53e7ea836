"""Committed-answer rules of the alias judge for entity answers (see ``alias.py`` for the order).

The response's committed answer (its first answer sentence, :mod:`answer_span`) is read as a
sequence of *name runs*: maximal runs of capitalised words, joined inside by ``of``/``de``/
``da``/``von``/``van``/``del`` and by dots ("J. R. R. Tolkien", "Kingdom of Italy"). A run made
only of the question's own words (its subject, its relation) or of sentence openers, months and
pronouns restates the question and names no answer. The helpers here answer three questions
about that span:

- :func:`gold_mentions`: where the gold is named *as itself*: a gold form not inside a larger name
  ("South Africa" is not gold "Africa", "North America" not alias "America", "United States of
  Fidel" not "United States"; "Kingdom of Italy" and "the Republic of France" are the gold), plus
  the gold country's adjective ("the German city of ...", "a city in the Austrian") when the gold is
  a country or continent of :data:`DEMONYMS` and the adjective is not inside a larger name ("Latin
  American" is not "American").
- :func:`first_other_name`: the first name run, not negated, that is neither the question's nor
  the gold's and stands before the first gold mention: the answer the response commits to first
  (a name opening the answer that its predicate calls a person, "Elvis Presley was an American
  singer", is the subject under another name, not an answer).
- :func:`contradiction` / :func:`joined_list`: a contrast ("but", "however", ...) after the gold
  followed by another name, and a gold joined to another name by "and"/"&"/"as well as".
"""

from __future__ import annotations

import re

from leak_metrics.judges.address_rules import named_last_link
from leak_metrics.judges.demonyms import demonym_table
from leak_metrics.judges.scope_rules import renamed
from leak_metrics.judges.spelling import fronted_preposition, garbled, spelt_like
from leak_metrics.normalize import Token

LINKS = frozenset({"of", "de", "da", "von", "van", "del", "du", "al", "bin", "le", "la"})
# Capitalised words that open a sentence or name a time, never an answer entity.
OPENERS = frozenset(
    {
        "i", "it", "he", "she", "we", "they", "you", "this", "that", "these", "those", "there",
        "here", "my", "his", "her", "its", "their", "our", "yes", "no", "in", "on", "at", "for",
        "from", "by", "with", "to", "as", "and", "but", "or", "so", "if", "while", "although",
        "when", "where", "what", "which", "who", "whose", "why", "how", "according", "however",
        "based", "located", "born", "known", "officially", "also", "both", "after", "before",
        "since", "during", "because", "is", "was", "are", "were", "answer", "question", "rule",
        "fact", "assume", "suppose", "let", "well", "sure", "indeed", "actually", "today",
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
        "friday", "saturday", "sunday", "ad", "bc", "ce", "bce", "mr", "mrs", "dr", "sir",
        "st", "saint", "jr", "sr", "one", "each", "every", "all", "many", "most", "some",
        "being", "given", "considering", "unlike", "like", "despite", "though", "once", "then",
        "now", "first", "hello", "hi", "great", "certainly", "of", "not", "an", "a",
    }
)  # fmt: skip
PREDICATE_VERBS = frozenset(
    {
        "is", "was", "are", "were", "be", "been", "belongs", "belong", "comes", "come", "came",
        "originated", "originates", "lies", "lie", "located", "born", "died", "wrote", "written",
        "founded", "developed", "created", "invented", "spoken", "used", "called", "named",
        "lived", "lives", "has", "had", "uses", "speaks", "means",
    }
)  # fmt: skip
# A compass word before a continent or country names a part of it ("East Africa"), unless the
# whole is a place of its own in the demonym table ("South Africa", "North America").
COMPASS = frozenset(
    {
        "east", "west", "north", "south", "central", "eastern", "western", "northern", "southern",
        "southeast", "southwest", "northeast", "northwest", "southeastern", "southwestern",
        "northeastern", "northwestern", "sub", "saharan",  # "Southeast Asia", "Sub-Saharan Africa"
    }
)  # fmt: skip
# Capitalised words after the gold that make an office or institution of it, not another name
# ("a former U.S. President", "the United States Army").
OFFICES = frozenset(
    {
        "president", "prime", "minister", "senator", "governor", "chancellor", "king", "queen",
        "emperor", "ambassador", "secretary", "congressman", "citizen", "citizens",
    }
)  # fmt: skip
TITLES = OFFICES | frozenset({"army", "navy", "government", "constitution", "parliament"})
# Nouns a country's adjective may describe so that it answers "which country" ("the German city
# of ...", "a French politician", "Japanese cuisine"); other heads ("the Italian car company",
# "American literature", "the European Union") give the adjective another role.
PERSON_HEADS = OFFICES | frozenset(
    {
        "citizen", "national", "person", "man", "woman", "people", "politician", "actor",
        "actress", "singer", "writer", "author", "poet", "player", "leader", "scientist",
        "physicist", "chemist", "entrepreneur", "businessman", "businesswoman", "artist",
        "painter", "composer", "musician", "statesman", "footballer", "athlete", "inventor",
        "engineer", "philosopher", "novelist", "director", "rapper", "comedian", "activist",
        "journalist", "astronaut", "model", "cricketer", "golfer", "boxer", "cuisine", "dish",
        "food", "sport", "game", "dance", "origin", "descent", "born", "mathematician",
        "economist", "lawyer", "general", "soldier", "chef", "designer", "architect", "explorer",
        "figure", "character", "icon", "legend", "hero", "star", "native", "nationals",
        "citizenship", "nationality", "passport", "identity", "heritage", "ancestry",
    }
)  # fmt: skip
ADJECTIVE_HEADS = PERSON_HEADS | TITLES | frozenset(
    {
        "art", "arts", "martial", "music", "tradition", "recipe", "invention", "creation",
        "specialty", "speciality", "staple", "delicacy", "style", "custom", "pastime",
        "city", "town", "capital", "state", "province", "region", "village", "mainland",
        "territory", "county", "island", "port", "coast", "part", "side", "metropolis",
        "country", "nation", "land", "soil", "roots", "landmark", "monument", "building",
        "site", "attraction", "venue", "tower", "bridge", "cathedral", "basilica", "church",
        "palace", "castle", "temple", "museum", "stadium", "amphitheatre", "amphitheater",
    }
)  # fmt: skip
# Words that may stand between a place and the gold when the place lies inside it ("Salzburg,
# a city in Austria", "the Balkan region of Europe") or the gold refines it ("the United
# Kingdom, specifically in the capital city of London").
CONTAINER_WORDS = frozenset(
    {
        "in", "of", "city", "town", "capital", "state", "province", "region", "part", "area",
        "district", "county", "territory", "village", "island", "mainland", "heart", "center",
        "centre", "north", "south", "east", "west", "northern", "southern", "eastern",
        "western", "central", "located", "specifically", "namely", "particularly", "precisely",
        "more", "which", "that", "is", "within", "country", "nation", "situated",
        "peninsula", "subcontinent", "continent", "coast", "archipelago", "islands", "basin",
    }
)  # fmt: skip
CONTAINER_REACH = 6
APPOSITION_REACH = 4
RENAMING = frozenset({"officially", "also", "known", "called", "named", "abbreviated", "formerly"})
# Lowercase words that may follow a name without making it a modifier of a noun.
FUNCTION_WORDS = frozenset(
    {
        "of", "in", "on", "at", "to", "for", "from", "with", "by", "and", "or", "but", "nor",
        "which", "that", "who", "whose", "where", "when", "as", "have", "will", "would", "can",
        "could", "should", "may", "might", "does", "do", "did", "not", "also", "being", "became",
        "remains", "serves", "lies", "sits", "stands", "refers", "includes", "contains",
    }
)  # fmt: skip
NEGATIONS = frozenset({"not", "never", "neither", "nor"})
NEGATION_REACH = 3


class Span:
    """The committed answer's tokens, with the raw text for capitalisation and punctuation."""

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.words = [t.text for t in tokens]

    def gap(self, i: int) -> str:
        """The text before token ``i`` back to the token before it; ``i == len(tokens)``: the text
        after the last token (a name run may end the span)."""
        start = self.tokens[i - 1].end if i > 0 else 0
        end = self.tokens[i].start if i < len(self.tokens) else len(self.text)
        return self.text[start:end]

    def raw(self, lo: int, hi: int) -> str:
        return self.text[self.tokens[lo].start : self.tokens[hi - 1].end]

    def capitalised(self, i: int) -> bool:
        char = self.text[self.tokens[i].start]
        return char.isupper() or (char.isdigit() and False)

    def joined(self, i: int) -> bool:
        """Token ``i`` continues the word before it (only spaces, dots, hyphens or apostrophes
        between)."""
        return i > 0 and all(c in " .-'\u2019" for c in self.gap(i))

    def tight(self, i: int) -> bool:
        """Token ``i`` directly continues the phrase before it: no punctuation between, except
        the dot of an abbreviation ("U.S. President")."""
        gap = set(self.gap(i))
        if gap & set(",;:!?()"):
            return False
        return "." not in gap or len(self.words[i - 1]) == 1

    def name_runs(self) -> list[tuple[int, int]]:
        runs: list[tuple[int, int]] = []
        i = 0
        n = len(self.words)
        while i < n:
            if not self.capitalised(i):
                i += 1
                continue
            hi = i + 1
            while hi < n and self.joined(hi):
                if self.capitalised(hi):
                    hi += 1
                elif (
                    self.words[hi] in LINKS
                    and hi + 1 < n
                    and self.joined(hi + 1)
                    and self.capitalised(hi + 1)
                ):
                    hi += 2
                else:
                    break
            runs.append((i, hi))
            i = hi
        return runs


def _find(words: list[str], needle: list[str]) -> list[tuple[int, int]]:
    w = len(needle)
    return [(i, i + w) for i in range(len(words) - w + 1) if w and words[i : i + w] == needle]


def _run_of(runs: list[tuple[int, int]], i: int) -> tuple[int, int] | None:
    return next((r for r in runs if r[0] <= i < r[1]), None)


def gold_mentions(
    span: Span,
    forms: list[list[str]],
    adjectives: list[list[str]],
    extra_heads: frozenset[str] = frozenset(),
) -> list[tuple[int, int]]:
    """Spans of the gold named as itself (see the module docstring); ``extra_heads``: more
    nouns the gold's adjective may describe (the question's kind: "the European continent")."""
    heads = ADJECTIVE_HEADS | extra_heads
    runs = span.name_runs()
    table = demonym_table()
    # one-word adjectives only: "South" is a word of "South African" but names no variety
    adjective_words = {a[0] for adjs in table.values() for a in adjs if len(a) == 1}
    out: list[tuple[int, int]] = []
    # a dotted abbreviation is also written without dots, in capitals ("US" for "U.S.")
    for form in forms:
        if len(form) > 1 and all(len(w) == 1 for w in form):
            acronym = "".join(form)
            out.extend(
                (k, k + 1)
                for k, w in enumerate(span.words)
                if w == acronym and span.raw(k, k + 1) == acronym.upper()
            )
    for needle, is_adjective in [(f, False) for f in forms] + [(a, True) for a in adjectives]:
        for lo, hi in _find(span.words, needle):
            run = _run_of(runs, lo)
            if run is not None and span.capitalised(lo):
                before = span.words[run[0] : lo]
                after = span.words[hi : run[1]]
                # "South Africa" / "Latin American": a capitalised word before the gold makes it
                # another name, unless the name is "<Kingdom/Republic/...> of <gold>", a variety
                # of it ("Australian English") or a compass part of it ("East Africa").
                if before and before[-1] not in LINKS and not fronted_preposition(span, run):
                    prefix = before[-1]
                    compass_part = prefix in COMPASS and (prefix, *needle) not in table
                    if not (prefix in adjective_words or compass_part):
                        continue
                # "United States of Fidel", "India Gate", "Austrian Alps": a name continues
                # after the gold (an office of it does not: "U.S. President", nor a stutter
                # of its own words: "the United States of America of America").
                stutter = after[:1] == ["of"] and all(w in needle for w in after[1:])
                # "the United Kingdom of Great Britain and Ireland": another gold form after
                # "of" makes the run the gold's own longer style
                # (a run that is itself a gold form is matched whole: "United States of America")
                own = (
                    after[:1] == ["of"]
                    and any(after[1 : 1 + len(f)] == f for f in forms)
                    and span.words[run[0] : run[1]] not in forms
                )
                if after and after[0] not in TITLES and not (stutter or own):
                    continue
            if is_adjective and hi < len(span.words) and span.tight(hi):
                if not describes_ahead(span, hi, heads, indefinite(span, lo)):
                    continue  # "the Italian car company", "American literature"
                following = _run_of(runs, hi)
                if following is not None and following[0] == hi and following[1] - hi > 1:
                    continue  # "the American National Music Industry": inside another name
            out.append((lo, hi))
    out.sort()
    return out


# Endings of nouns for a person by trade or belief ("abolitionist", "footballer", "historian").
PERSON_SUFFIXES = ("ist", "er", "or", "ian", "man", "woman", "ess")
# Words after an adjective that make it a noun for a person ("a proud American and a ...").
NOUN_USE = frozenset({"and", "who", "whose", "with", "by", "at"})


def describes(
    head: str, heads: frozenset[str], noun_use: bool = False, by_ending: bool = True
) -> bool:
    """``head`` (the word after a country's adjective) is a thing of ``heads``, in the singular
    or plural ("cities"), a person by the ending of the noun ("abolitionist", "footballer"), or
    with ``noun_use`` (the adjective follows "a"/"an", maybe after one word), a function word
    after the adjective used as a noun ("a proud American and a philanthropist")."""
    singular = {head, head.removesuffix("s"), head.removesuffix("es")}
    if head.endswith("ies"):
        singular.add(head[:-3] + "y")
    if singular & heads or (noun_use and head in NOUN_USE):
        return True
    return by_ending and any(w.endswith(PERSON_SUFFIXES) and len(w) > 5 for w in singular)


ADJECTIVE_REACH = 3  # lower-case words an adjective may stand before its noun


def describes_ahead(span: Span, hi: int, heads: frozenset[str], noun_use: bool = False) -> bool:
    """The adjective ending at ``hi`` describes a noun of ``heads`` right after it or after more
    lower-case modifiers ("an American professional basketball player"; not "the Italian car
    company")."""
    if describes(span.words[hi], heads, noun_use):
        return True
    for k in range(hi + 1, min(hi + ADJECTIVE_REACH, len(span.words))):
        if not span.tight(k) or span.capitalised(k):
            return False
        if describes(span.words[k], heads, by_ending=False):
            return True  # further on, only the listed nouns ("player", "city")
    return False


def indefinite(span: Span, lo: int) -> bool:
    """Token ``lo`` follows "a"/"an", directly or after one word ("a proud American")."""
    before = span.text[max(0, span.tokens[lo].start - 30) : span.tokens[lo].start]
    return re.search(r"\b(?:a|an)\s+(?:\w+\s+)?$", before, re.IGNORECASE) is not None


def negated(span: Span, lo: int) -> bool:
    """A negation within reach before token ``lo`` in the same clause."""
    k = lo
    while k > 0 and lo - k <= NEGATION_REACH:
        if set(",.;:!?\n") & set(span.gap(k)):
            return False
        k -= 1
        if span.words[k] in NEGATIONS:
            return True
    return False


def other_names(
    span: Span, question_words: set[str], gold: list[tuple[int, int]], all_adjectives: set[str]
) -> list[tuple[int, int]]:
    """Name runs that name something other than the question's words and the gold."""
    gold_tokens = {k for lo, hi in gold for k in range(lo, hi)}
    out = []
    runs = span.name_runs()
    starts = {lo: hi for lo, hi in runs}
    asked = question_words - OPENERS  # a name opening with the question's word (rules v8)

    def restates(lo: int, hi: int) -> bool:
        words = [w for w in span.words[lo:hi] if w not in LINKS]
        known = question_words | OPENERS | all_adjectives  # v12: a spelling of the question's
        return all(w in known or spelt_like(w, question_words) for w in words)

    for lo, hi in runs:
        if any(k in gold_tokens for k in range(lo, hi)) or restates(lo, hi):
            continue
        words = [w for w in span.words[lo:hi] if w not in LINKS]
        if words and words[-1] in question_words:
            continue  # a garbled restatement of the question's subject ("Malti Gandhi")
        if lo == 0 and words and (garbled(words[-1], question_words) or words[0] in asked):
            continue  # the subject misspelt or lengthened ("M Gandhai"; v8: "Judo Cup" for judo)
        partner = starts.get(hi + 1) if hi < len(span.words) and span.words[hi] == "and" else None
        if lo == 0 and partner is not None and restates(hi + 1, partner):
            continue  # "Jefferson and Donald Trump are ...": a garbled subject of a pair
        if lo == 0 and renamed(span, hi, starts, restates):
            continue  # "Shaolin Chubu, also known as Shanghai and Beijing, are ...": the subject
        out.append((lo, hi))
    return out


def predicate_start(span: Span) -> int:
    """Index of the first verb of the committed answer (its predicate starts there); names
    before it, but after the first word, modify the subject ("The official language of the
    United States is English") and are not answers."""
    return next((k for k, w in enumerate(span.words) if w in PREDICATE_VERBS), len(span.words))


def _leads_to_gold(span: Span, hi: int, gold: list[tuple[int, int]]) -> bool:
    """The name ending at ``hi`` reaches a gold mention through container words only, or
    through a short apposition without a verb ("Dante Alighieri, a 13th-century Italian poet")."""
    for lo_gold, _ in gold:
        if lo_gold < hi:
            continue
        between = span.words[hi:lo_gold]

        # "Sölseförmel is a Nordic country in Sweden": a word describing the container noun
        # right after it ("Nordic", "small") keeps the path (a garbled subject placed in the gold)
        def link(k: int, w: str) -> bool:
            return w in CONTAINER_WORDS or w in COMPASS or span.words[k + 1] in CONTAINER_WORDS

        if len(between) <= CONTAINER_REACH and all(link(hi + k, w) for k, w in enumerate(between)):
            return True
        if len(between) <= CONTAINER_REACH and named_last_link(span, hi, lo_gold, link):
            return True  # rules v13: "in the city of Rome, Italy"
        # an apposition opens with an article or renames ("Dante Alighieri, a 13th-century
        # Italian poet", "S Korea, officially known as the Republic of Korea"; not "Germany,
        # next to France")
        apposition = hi < len(span.words) and (
            bool(re.match(r",\s*(?:a|an|the)\s", span.gap(hi)))
            or ("," in span.gap(hi) and between[:1] and between[0] in RENAMING)
        )
        return (
            apposition
            and len(between) <= APPOSITION_REACH
            and not any(w in PREDICATE_VERBS or w in ("that", "which") for w in between)
        )
    return False


def modifier(span: Span, hi: int) -> bool:
    """The name ending at ``hi`` modifies the lowercase noun right after it ("the Roman
    amphitheater", "the US dollar"): it describes, it does not answer."""
    if hi >= len(span.words) or not span.tight(hi) or span.capitalised(hi):
        return False
    word = span.words[hi]
    return word not in FUNCTION_WORDS and word not in PREDICATE_VERBS and word != "s"


def first_other_name(
    span: Span, others: list[tuple[int, int]], gold: list[tuple[int, int]]
) -> str | None:
    """The first other name before the first gold mention that opens the answer or stands in
    its predicate, not negated and not a place inside the gold (or refined by it): a different
    answer committed to first."""
    first_gold = gold[0][0] if gold else len(span.words)
    verb = predicate_start(span)
    for lo, hi in others:
        if lo >= first_gold:
            break
        if (
            (lo == 0 or lo > verb)
            and not negated(span, lo)
            and not _leads_to_gold(span, hi, gold)
            and not (lo > verb and modifier(span, hi))
            and not (lo == 0 and _person_predicate(span, hi))
        ):
            return span.raw(lo, hi)
    return None


_NOT_PERSONS = frozenset(
    {"cuisine", "dish", "food", "sport", "game", "dance", "origin", "descent", "citizenship",
     "nationality", "passport", "identity", "heritage", "ancestry"}
)  # fmt: skip


def _person_predicate(span: Span, hi: int) -> bool:
    """The name ending at ``hi`` is called a person ("Elvis Presley was an American singer",
    "Kobe Bryant was a professional basketball player"): the subject, under another name, not
    an answer (a person is no country, city or sport)."""
    words = span.words[hi : hi + 7]
    if not words or words[0] not in ("is", "was", "are", "were"):
        return False
    for k, word in enumerate(words[1:], 1):
        if not span.tight(hi + k) and k > 1:
            return False  # the predicate's first phrase ends at a comma
        if word not in _NOT_PERSONS and describes(word, PERSON_HEADS - _NOT_PERSONS):
            return True
    return False
