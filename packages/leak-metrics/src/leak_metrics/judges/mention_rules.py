"""Which gold mentions name the gold *as the answer* (issue 35): filters applied to the mentions
:func:`entity_rules.gold_mentions` finds, each a general rule over the committed answer.

- **Short codes** (:func:`short_code_ok`): a mention whose written form has 1-2 letters or digits
  ("US", "U.K.", "UN") names the gold only when it is written as a code (capital letters, as a
  whole token) and is a code of that entity in ``data/entity_codes.tsv`` (the list kg-qgen's
  alias rule reads too). A short alias that is not such a code never matches.
- **Case** (:func:`case_ok`): a gold form written with a capital ("the States", "Turkey") is not
  matched by the same letters written in lower case in a response that uses capitals ("The rule
  states that ...", "roast turkey"): the common word is another word.
- **Mixed nationality** (:func:`mixed_nationality`): a gold name or adjective joined by a hyphen
  to another nationality ("Canadian-American", "Italian-American") is not the single country.
- **Longer name** (:func:`inside_other_name`): the gold is the tail of a longer name that is
  another place of the demonym table ("Republic of China" for China: that is Taiwan); the
  response then names that other place, a wrong answer.
- **Another entity's adjective** (:func:`describes_person`): unless the question asks a
  person's citizenship, a country's adjective that describes a person ("a monument to Gustave
  Eiffel, a French engineer" for the Eiffel Tower's country; "an English footballer" for where
  David Beckham's sport originates) is that person's nationality, not the answer.
- **Agent noun and plural** (:func:`agent_nouns`): a sport or trade written in lower case is
  also named by its plural ("writers") and by the noun for the one who does it ("footballer",
  "cricketers" for football, cricket).
- **Larger unit** (:func:`larger_unit`): a shorter form of the gold qualified by another kind of
  unit than the gold's own ("the state of New York", "New York State" for New York City,
  "Washington State" for Washington, D.C.).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from leak_metrics.judges.demonyms import all_adjective_words, demonym_table
from leak_metrics.judges.entity_rules import PERSON_HEADS, Span, describes, describes_ahead
from leak_metrics.normalize import tokenize

# Kinds of place a name may be qualified by ("the state of X", "X State", "X City").
UNIT_WORDS = frozenset(
    {"city", "state", "province", "county", "region", "district", "prefecture", "territory"}
)
# Words that make "<word> <unit> of <gold>" a unit inside the gold, not a unit named like it
# ("the capital city of the UK", "the largest city of Mexico"; not "the state of Mexico").
RANKS = frozenset({"capital", "largest", "biggest", "major", "main", "chief", "principal"})
SHORT_CODE_LENGTH = 2
LONGEST_NAME = 5  # words before the gold a longer place name may have ("People's Republic of")


def _compact(text: str) -> str:
    """Letters and digits only, upper-cased: "U.S." -> "US"."""
    return "".join(c for c in text if c.isalnum()).upper()


def _label_key(label: str) -> str:
    return " ".join(tokenize(label))


@lru_cache(maxsize=1)
def code_table() -> dict[str, frozenset[str]]:
    """Normalised entity label -> its short codes, from ``data/entity_codes.tsv``."""
    table: dict[str, set[str]] = {}
    text = (resources.files("leak_metrics") / "data" / "entity_codes.tsv").read_text("utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        code, label = line.split("\t")[:2]
        table.setdefault(_label_key(label), set()).add(_compact(code))
    return {label: frozenset(codes) for label, codes in table.items()}


def entity_codes(labels: list[str]) -> frozenset[str]:
    """The short codes of an entity known by any of ``labels`` (its answer and aliases)."""
    table = code_table()
    out: set[str] = set()
    for label in labels:
        out |= table.get(_label_key(label), frozenset())
    return frozenset(out)


def is_short(text: str) -> bool:
    """A form of 1-2 letters or digits (dots and spaces ignored): "US", "U.K.", "7"."""
    return 0 < len(_compact(text)) <= SHORT_CODE_LENGTH


def short_code_ok(span: Span, lo: int, hi: int, codes: frozenset[str]) -> bool:
    """A short mention is a known code of the entity, written in capitals as a whole token
    ("US", "U.S."; not "us", not "Us")."""
    raw = span.raw(lo, hi)
    code = _compact(raw)
    letters = [c for c in raw if c.isalpha()]
    return code in codes and all(c.isupper() for c in letters)


def case_ok(span: Span, lo: int, raw_forms: list[str]) -> bool:
    """The mention at ``lo`` keeps the capital of the gold form it matches (see module doc)."""
    capital_forms = [f for f in raw_forms if _first_word_capitalised(f)]
    if not capital_forms or len(capital_forms) < len(raw_forms):
        return True  # some form of these words is written in lower case ("euro")
    if not any(c.isupper() for c in span.text):
        return True  # a response written all in lower case
    return span.text[span.tokens[lo].start].isupper() or span.text[span.tokens[lo].start].isdigit()


def _first_word_capitalised(form: str) -> bool:
    words = [w for w in form.split() if w.casefold() not in ("the", "a", "an")]
    return bool(words) and words[0][:1].isupper()


def mixed_nationality(span: Span, lo: int, hi: int) -> str | None:
    """The mention is one half of a hyphenated nationality ("Canadian-American")."""
    adjectives = all_adjective_words()
    names = {w for name in demonym_table() for w in name}
    nationality = adjectives | names
    words = span.words
    if lo > 0 and span.gap(lo).strip() == "-" and words[lo - 1] in nationality:
        return span.raw(lo - 1, hi)
    if hi < len(words) and span.gap(hi).strip() == "-" and words[hi] in nationality:
        return span.raw(lo, hi + 1)
    return None


def inside_other_name(span: Span, lo: int, hi: int, gold_forms: list[list[str]]) -> str | None:
    """The mention ends a longer name of another place ("Republic of China" is Taiwan); the
    longest name found decides ("People's Republic of China" is China itself)."""
    table = demonym_table()
    gold_adjectives = {a for f in gold_forms for a in table.get(tuple(f), [])}
    for width in range(min(lo, LONGEST_NAME), 0, -1):
        start = lo - width
        if set(",;:()") & set("".join(span.gap(k) for k in range(start + 1, hi))):
            continue
        longer = tuple(span.words[start:hi])
        if list(longer) in gold_forms or set(table.get(longer, [])) & gold_adjectives:
            return None  # the gold's own longer name
        if longer in table:
            return span.raw(start, hi)
    return None


def larger_unit(span: Span, lo: int, hi: int, answer: str) -> str | None:
    """A shorter form of the gold (an alias) qualified by another kind of unit than the gold
    answer's own ("the state of New York" for "New York City", "Washington State" for
    "Washington, D.C."): it names another place, not the gold; a ranked unit "of" the gold ("a
    capital city of the UK", rules v8) lies inside the gold and does not qualify it."""
    answer_tokens = tokenize(answer)
    own = UNIT_WORDS & set(answer_tokens)
    if span.words[lo:hi] == answer_tokens:
        return None  # the gold's full name: "the state of New York" for New York (state)
    words = span.words
    before = words[lo - 2] if lo >= 2 and words[lo - 1] == "of" else None
    if lo >= 3 and words[lo - 3] in RANKS:
        before = None  # rules v8: "a capital city of the UK" places a city in the gold
    after = words[hi] if hi < len(words) and span.tight(hi) else None
    for unit in (before, after):
        if unit in UNIT_WORDS and unit not in own:
            return span.raw(lo - 2, hi) if unit == before else span.raw(lo, hi + 1)
    return None


def filter_mentions(
    span: Span,
    named: list[tuple[int, int]],
    answer: str,
    forms: list[tuple[str, list[str]]],
    gold_forms: list[list[str]],
) -> tuple[list[tuple[int, int]], list[str], list[str]]:
    """The mentions of ``named`` that name the gold as itself, the mixed nationalities met, and
    the longer names of other places the gold was found in (``forms``: every raw gold form with
    its tokens)."""
    raw_by_tokens: dict[tuple[str, ...], list[str]] = {}
    for raw, tokens in forms:
        raw_by_tokens.setdefault(tuple(tokens), []).append(raw)
    codes = entity_codes([raw for raw, _ in forms])
    numeric_answer = all(t.isdigit() for t in tokenize(answer))  # "3", "three": a number
    kept: list[tuple[int, int]] = []
    mixed: list[str] = []
    others: list[str] = []
    for lo, hi in named:
        raw_forms = raw_by_tokens.get(tuple(span.words[lo:hi]), [])
        if is_short(span.raw(lo, hi)) and not numeric_answer:
            if not short_code_ok(span, lo, hi, codes):
                continue
        elif raw_forms and not case_ok(span, lo, raw_forms):
            continue
        found = mixed_nationality(span, lo, hi)
        if found is not None:
            mixed.append(found)
            continue
        other = inside_other_name(span, lo, hi, gold_forms)
        if other is not None:
            others.append(other)
            continue
        # a unit after an adjective is the gold's own part ("the German city of ..."): only a
        # name form of the gold can be qualified by another unit
        if not raw_forms or larger_unit(span, lo, hi, answer) is None:
            kept.append((lo, hi))
    return kept, mixed, others


def agent_nouns(forms: list[tuple[str, list[str]]]) -> list[list[str]]:
    """ "<form>er(s)" for every gold form written in lower case ("association football" ->
    "association footballer", "football" -> "footballer")."""
    out: list[list[str]] = []
    for raw, tokens in forms:
        if not tokens or not raw[:1].islower() or len(tokens[-1]) < 4:
            continue
        out.append([*tokens[:-1], tokens[-1] + "s"])  # the plural: "writers", "poets"
        if tokens[-1][-1] not in "aeiou":
            out.extend([*tokens[:-1], tokens[-1] + suffix] for suffix in ("er", "ers"))
    return out


def noun_plurals(forms: list[tuple[str, list[str]]]) -> list[list[str]]:
    """Rules v13: the plural of a gold form of several words that ends in a word written in lower
    case, a common noun ("Cuban pesos" for "Cuban peso", "US dollars"): the same answer."""
    out: list[list[str]] = []
    for raw, tokens in forms:
        last = raw.split()[-1] if raw.split() else ""
        if len(tokens) < 2 or not last.isalpha() or not last.islower() or last[-1] == "s":
            continue
        suffix = "es" if tokens[-1].endswith(("x", "ch", "sh")) else "s"
        out.append([*tokens[:-1], tokens[-1] + suffix])
    return out


@lru_cache(maxsize=1)
def _adjective_pairs() -> tuple[frozenset[str], frozenset[tuple[str, ...]]]:
    """One-word nationality adjectives ("French") and the longer ones ("South Korean")."""
    adjectives = {a for adjs in demonym_table().values() for a in adjs}
    return frozenset(a[0] for a in adjectives if len(a) == 1), frozenset(
        a for a in adjectives if len(a) > 1
    )


def mixed_with_gold(span: Span, gold_words: set[str]) -> str | None:
    """A mixed nationality anywhere in the answer with the gold as one half: hyphenated ("an
    Italian-American footballer ... a native of Italy" for Italy), side by side ("a French
    American", rules v12) or joined by "and" ("an American and Canadian actor")."""
    adjectives = all_adjective_words()
    nationality = adjectives | {w for name in demonym_table() for w in name}
    words = span.words
    for k in range(1, len(words)):
        pair = {words[k - 1], words[k]}
        joined = span.gap(k).strip() == "-" and len(pair) == 2
        if joined and pair <= nationality and pair & gold_words:
            return span.raw(k - 1, k + 1)
        # rules v12: two capitalised adjectives side by side ("a French American who ...")
        single, longer = _adjective_pairs()
        side = span.gap(k) == " " and span.capitalised(k - 1) and span.capitalised(k)
        side = side and tuple(words[k - 1 : k + 1]) not in longer  # not "South Korean"
        if side and len(pair) == 2 and pair <= single and pair & gold_words:
            return span.raw(k - 1, k + 1)
        if words[k] == "and" and k + 1 < len(words) and span.tight(k + 1) and span.tight(k):
            both = {words[k - 1], words[k + 1]}
            if len(both) == 2 and both <= adjectives and both & gold_words:
                return span.raw(k - 1, k + 2)
    return None


# Things among the heads a country's adjective may describe; the other heads are persons.
THING_HEADS = frozenset(
    {
        "cuisine",
        "dish",
        "food",
        "sport",
        "game",
        "dance",
        "origin",
        "descent",
        "born",
        "citizenship",
        "nationality",
        "passport",
    }
)


def describes_person(
    span: Span, lo: int, hi: int, adjectives: list[list[str]], origins: bool = False
) -> bool:
    """The mention is a country's adjective describing a person ("an English footballer", "an
    American professional basketball player"), or, with ``origins``, a place a person is from
    ("a basketball player from the United States")."""
    words = span.words
    persons = PERSON_HEADS - THING_HEADS
    if origins and lo >= 2 and words[lo - 1] == "from" and span.tight(lo - 1):
        return words[lo - 2] not in THING_HEADS and describes(words[lo - 2], persons)
    if words[lo:hi] not in adjectives or hi >= len(words) or not span.tight(hi):
        return False
    if describes_ahead(span, hi, persons) and not describes_ahead(span, hi, THING_HEADS):
        return True
    return words[hi] not in THING_HEADS and describes(words[hi], persons)
