"""Rules version 9 of the alias judge (issue 35, round nine): a garbled subject put in the gold,
a place of the gold named by its adjective, and the gold or an option named in no answer role.
The labelling guide's standard (section 6): a garbled subject followed by a clear answer counts;
the subject, or a place containing it, put in the gold with no other candidate is the gold; the
gold or its adjective attached to a thing of another kind is not.

- :func:`placed_in_gold`: for a citizenship question, "<the question's asked noun and subject>
  is/are [both] [a <lowercase noun>] in <gold>" ("The citizenship countries of X and Y are both
  in the United States", "X's citizenship is a nationality in the Republic of Y") puts the
  subject in the gold: the citizenship slot is filled (the name run holding the gold may carry
  the gold's own words and official-name words: "Republic", "Kingdom", "Federal", ...).
- :func:`possessed_value`: for a citizenship question, "<subject>'s <asked noun> of <gold>"
  ("Fidel Castro's country of Cuba") names the gold as the subject's value: the slot is filled.
- :func:`located_mentions`: the gold's adjective before a geographic noun, as the object of
  "in"/"on"/"within" (directly or through "the <lowercase words> of": "located in the northern
  part of the Egyptian desert", "both located on the German Alps"), names the gold: a place of
  the gold (rules v11: "in the Indian subcontinent" is a larger region, :mod:`region_rules`). Not a thing of the gold ("a law in the
  British parliament", "in the European Union": no geographic noun).
- :func:`agent_adjective`: the gold's adjective right after "<participle> by (the)" ("a sports
  car built by the American racer") is the nationality of whoever made or did the thing the
  answer names, no mention.
- :func:`ruled_out`: the gold only inside the subject of "is/are ruled out|excluded|eliminated"
  ("The country of Catalonia, a region of Catalonia in Spain, is ruled out") rejects it.
- :func:`other_owner_value`: with options shown, a wrong option inside a contrast clause
  (", while/whereas the <noun> of <name> is <option>") after the gold is another owner's value,
  no pick of that option ("X's country is France, while the country of Italy is Italy").

- :func:`abbreviation_end`: a gold mention in parentheses right after another gold mention,
  followed by slash- or comma-joined short words ("the United Kingdom (UK/GB/NU)"), is the
  gold's abbreviations, not alternatives: the mention runs to the last of them.

- :func:`contrast_rejected`: an option negated through a phrase and then replaced by a contrast
  ("not the capital of Nigeria, but rather the capital of South Africa") is rejected, as "not
  Nigeria" is: the answer picks what follows "but".

- :func:`born_adjective`: the gold's adjective joined to "-born" ("a European-born musician")
  names a birthplace, not the answer, unless the question asks where someone was born (a
  "Canadian-born American" is still named American by the adjective after it).

- :func:`connection_end`: every gold mention is an end of a connection ("a bridge that connects
  the East Bay of <gold>, California, to ..."), as the gold is one end of "between A and B":
  what is connected is not the asked value.

- :func:`unnamed_subject_adjective`: for a citizenship question, the gold's adjective in the
  answer's opening subject phrase (before its first verb) when the answer names none of the
  question's names ("The two most famous American heroes of ... were both born in ...") is
  about other people, not the asked subject (guide: "a Chinese politician" counts when it
  describes the subject).

Each function reads a span's ``words`` (normalised tokens), ``gap(i)`` (the raw text before
token ``i``) and ``capitalised(i)``: :class:`leak_metrics.judges.entity_rules.Span`.
"""

from __future__ import annotations

from typing import Any

from leak_metrics.normalize import tokenize_spans

_BREAKS = frozenset(',.;:!?()"\n')
_COPULAS = frozenset({"is", "was", "are", "were"})
# Words of an official name that may wrap the gold ("the Republic of South Africa").
_OFFICIAL_WORDS = frozenset(
    {"republic", "kingdom", "federal", "federation", "democratic", "people", "s", "commonwealth",
     "union", "state", "states", "of", "united", "islamic", "socialist", "grand", "duchy"}
)  # fmt: skip
# Lowercase words between the copula and "in" ("are both in", "is a nationality in").
_PLACED_REACH = 4
_PLACED_FILLERS_BAD = _COPULAS | {"not", "never", "born", "based", "living", "lived", "died"}
# Nouns that name a place of a country or continent (the head after its adjective).
GEOGRAPHIC_NOUNS = frozenset(
    {
        "desert", "alps", "mountains", "mountain", "highlands", "lowlands", "plain", "plains",
        "coast", "coastline", "peninsula", "subcontinent", "mainland", "countryside", "region",
        "regions", "island", "islands", "interior", "heartland", "border", "borders", "territory",
        "province", "state", "city", "capital", "part", "side", "valley", "riviera", "forest",
    }
)  # fmt: skip
_PLACE_PREPOSITIONS = frozenset({"in", "on", "within"})
# Participles whose "by" names an agent ("built by", "founded by", "written by"); any "-ed".
_AGENT_PARTICIPLES = frozenset(
    {"built", "made", "written", "run", "led", "owned", "driven", "drawn", "sung", "done"}
)
_REJECTED = frozenset({"ruled", "excluded", "eliminated"})
_SUBORDINATORS = frozenset(
    {"since", "because", "as", "so", "but", "while", "whereas", "therefore", "thus", "if", "then"}
)
_CONTRASTS = frozenset({"while", "whereas"})


def _plain(word: str) -> str:
    """A plural noun's singular ("countries" -> "country"), else the word."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word


def _restates(span: Any, verb: int, question_words: frozenset[str] | set[str]) -> bool:
    """The clause before the copula at ``verb`` is made of the question's words (a plural of
    one counts) and holds at least two of them (the asked noun and the subject)."""
    k = verb
    while k > 0 and not _BREAKS & set(span.gap(k)):
        k -= 1
    subject = span.words[k:verb]
    plain = {_plain(w) for w in question_words}
    asked = [w for w in subject if w in question_words or _plain(w) in plain]
    return len(asked) >= 2 and len(asked) >= len(subject) - 1


def placed_in_gold(
    span: Any,
    lo: int,
    gold_words: set[str],
    question_words: frozenset[str] | set[str],
) -> bool:
    """The gold mention at ``lo`` closes "<restated subject> <copula> [lowercase words] in
    <name run holding the gold>" (see the module docstring)."""
    words = span.words
    k = lo - 1
    while k > 0 and not _BREAKS & set(span.gap(k + 1)):
        linked = words[k] == "of" and span.capitalised(k - 1)
        if not (span.capitalised(k) or linked):
            break
        if words[k] not in gold_words and words[k] not in _OFFICIAL_WORDS:
            return False  # another name wraps the gold
        k -= 1
    if k < 1 or words[k] != "in" or _BREAKS & set(span.gap(k + 1)):
        return False
    j = k - 1
    while j >= 0 and k - j <= _PLACED_REACH + 1:
        if _BREAKS & set(span.gap(j + 1)) or span.capitalised(j):
            return False
        if words[j] in _COPULAS:
            between = words[j + 1 : k]
            return not set(between) & _PLACED_FILLERS_BAD and _restates(span, j, question_words)
        j -= 1
    return False


def located_mentions(span: Any, adjectives: list[list[str]]) -> list[tuple[int, int]]:
    """Adjective mentions of the gold that name a place of it (see the module docstring)."""
    words = span.words
    out = []
    for adjective in adjectives:
        width = len(adjective)
        for lo in range(1, len(words) - width):
            hi = lo + width
            if words[lo:hi] != adjective or words[hi] not in GEOGRAPHIC_NOUNS:
                continue
            if not span.tight(hi) or (
                hi + 1 < len(words) and span.tight(hi + 1) and words[hi + 1] in GEOGRAPHIC_NOUNS
            ):
                continue
            if _place_object(span, lo):
                out.append((lo, hi))
    return out


def _place_object(span: Any, lo: int) -> bool:
    """The phrase at ``lo`` is the object of in/on/within, directly or through "the <lowercase
    words> of" (articles are no tokens)."""
    words = span.words
    k = lo - 1
    if words[k] == "of":
        k -= 1
        while k > 0 and not span.capitalised(k) and words[k] not in _PLACE_PREPOSITIONS:
            if _BREAKS & set(span.gap(k + 1)) or lo - k > 5:
                return False
            k -= 1
    return words[k] in _PLACE_PREPOSITIONS and not _BREAKS & set(span.gap(k + 1))


def agent_adjective(span: Any, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The gold's adjective at ``lo:hi`` follows "<participle> by" (see the module docstring)."""
    words = span.words
    if (
        words[lo:hi] not in adjectives
        or lo < 2
        or words[lo - 1] != "by"
        or _BREAKS & set(span.gap(lo))
    ):
        return False
    verb = words[lo - 2]
    return verb in _AGENT_PARTICIPLES or (verb.endswith("ed") and len(verb) > 4)


def ruled_out(span: Any, gold: list[tuple[int, int]]) -> str | None:
    """Every gold mention lies in the subject of "is/are ruled out|excluded|eliminated" (no
    subordinator between the sentence start and the copula)."""
    words = span.words
    for k in range(1, len(words)):
        if words[k] not in _REJECTED or words[k - 1] not in _COPULAS | {"be"}:
            continue
        if words[k : k + 2] == ["ruled", "by"] or (words[k] == "ruled" and k + 1 == len(words)):
            continue  # "was ruled by": governed, not rejected
        if _SUBORDINATORS & set(words[:k]):
            return None
        if gold and all(hi < k for _, hi in gold):
            return " ".join(words[k - 1 : k + 1 + (words[k] == "ruled")])
        return None
    return None


def other_owner_value(span: Any, wrong: tuple[int, int], gold: list[tuple[int, int]]) -> bool:
    """The wrong option at ``wrong`` sits after ", while/whereas the <noun> of ..." that
    follows a gold mention (see the module docstring)."""
    words = span.words
    for k in range(wrong[0] - 1, 0, -1):
        if _BREAKS - {","} & set(span.gap(k + 1)):
            return False
        if words[k] in _CONTRASTS and "," in span.gap(k):
            clause = words[k + 1 : k + 4]
            owner = "of" in clause[1:] and not span.capitalised(k + 1)
            return owner and any(hi <= k for _, hi in gold)
    return False


# Longest word an abbreviation in parentheses may have ("UK", "GB", "USA").
_ABBREVIATION_WIDTH = 4


def abbreviation_end(span: Any, lo: int, hi: int, gold: set[tuple[int, int]]) -> int:
    """The end of the gold mention ``lo:hi`` with its abbreviation tail (see the module
    docstring): ``hi`` unless the mention opens a parenthesis right after another gold
    mention."""
    words = span.words
    if "(" not in span.gap(lo) or not any(g_hi == lo for _, g_hi in gold):
        return hi
    end = hi
    while end < len(words) and span.gap(end).strip() in ("/", ","):
        if len(words[end]) > _ABBREVIATION_WIDTH or not span.capitalised(end):
            return hi
        end += 1
    return end


_NEGATIONS = frozenset({"not", "never"})
_CONTRAST_OPENERS = frozenset({"but", "rather", "instead"})
# How many words a negation may stand before the option it rejects ("not the capital of").
_NEGATION_REACH = 4


def contrast_rejected(span: Any, lo: int, hi: int) -> bool:
    """The option mention ``lo:hi`` is negated through lowercase words and followed by ",
    but/rather/instead" (see the module docstring)."""
    words = span.words
    if hi >= len(words) or words[hi] not in _CONTRAST_OPENERS or "," not in span.gap(hi):
        return False
    for k in range(lo - 1, max(lo - 1 - _NEGATION_REACH, -1), -1):
        if _BREAKS & set(span.gap(k + 1)) or span.capitalised(k):
            return False
        if words[k] in _NEGATIONS:
            return True
    return False


def born_adjective(span: Any, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The gold's adjective at ``lo:hi`` is joined to "-born" (see the module docstring)."""
    words = span.words
    return (
        words[lo:hi] in adjectives
        and hi < len(words)
        and words[hi] == "born"
        and span.gap(hi).strip() == "-"
    )


_CONNECT_VERBS = frozenset(
    {"connect", "connects", "connecting", "connected", "link", "links", "linking", "linked",
     "join", "joins", "joining", "joined"}
)  # fmt: skip
_CONNECT_ENDS = frozenset({"to", "with", "and"})
# How far the gold may stand from the connecting verb, and the other end from the gold.
_CONNECT_REACH = 8


def connection_end(
    span: Any, gold: list[tuple[int, int]], question_words: set[str] | frozenset[str]
) -> str | None:
    """Every gold mention lies after a connecting verb of its sentence, with "to"/"with"/"and"
    between them or after the gold (see the module docstring); the verb, else None. Not when
    the question asks by a connecting verb ("With which sport is X connected?")."""
    if _CONNECT_VERBS & question_words:
        return None
    words = span.words
    found = None
    for lo, hi in gold:
        verb = None
        for k in range(lo - 1, max(lo - 1 - _CONNECT_REACH, -1), -1):
            if set(".;:!?\n") & set(span.gap(k + 1)):
                break
            if words[k] in _CONNECT_VERBS:
                verb = k
                break
        if verb is None:
            return None
        ends = _CONNECT_ENDS & set(words[verb + 1 : lo] + words[hi : hi + _CONNECT_REACH])
        if not ends:
            return None
        found = found or words[verb]
    return found


# Nouns a citizenship question asks by ("country", "citizenship", "nationality").
_ASKED_NOUNS = frozenset({"country", "citizenship", "nationality", "nation"})


def possessed_value(span: Any, lo: int, question_words: frozenset[str] | set[str]) -> bool:
    """The gold at ``lo`` follows "<question word>'s <asked noun> of" with no punctuation
    between (see the module docstring)."""
    words = span.words
    if lo < 4 or words[lo - 1] != "of" or words[lo - 3] != "s":
        return False
    if words[lo - 2] not in _ASKED_NOUNS or words[lo - 2] not in question_words:
        return False
    if any(_BREAKS & set(span.gap(k)) for k in range(lo - 3, lo + 1)):
        return False
    return words[lo - 4] in question_words and span.capitalised(lo - 4)


def unnamed_subject_adjective(
    span: Any, lo: int, hi: int, adjectives: list[list[str]], question: str, verb: int
) -> bool:
    """The adjective at ``lo:hi`` lies before the first verb ``verb`` and the answer names no
    capitalised word of the question (see the module docstring)."""
    if span.words[lo:hi] not in adjectives or lo >= verb:
        return False
    names = {
        t.text for t in tokenize_spans(question) if question[t.start].isupper()
    } - _QUESTION_OPENERS
    return bool(names) and not names & set(span.words)


# Capitalised question words that open the question rather than name its subject.
_QUESTION_OPENERS = frozenset(
    {"what", "which", "who", "where", "when", "how", "can", "is", "are", "do", "does", "did",
     "name", "tell", "give", "in", "of", "the", "a", "an", "there", "i", "it", "you"}
)  # fmt: skip
