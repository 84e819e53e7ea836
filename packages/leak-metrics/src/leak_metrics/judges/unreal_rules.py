"""Non-answer rules of the alias judge (issue 35, round six): a committed answer that names the
gold but says the asked thing is not real, or uses the gold's adjective as a language.

- :func:`fictional_subject`: the first copula's complement calls the subject fictional ("The
  country of JK Rowling is a fictional world created by ... a British author", "The Mark Twain
  is a fictional character from the famous American author"): the answer denies that a real
  value exists, whatever it names after; "known for his fictional works" (no copula's
  complement) says nothing of the kind, and "Sherlock Holmes is a fictional British detective"
  (the gold describes the fiction itself) still answers;
- :func:`language_use`: a gold country's adjective right after "in" (no article: "a city in the
  Austrian", cut off, is still the country) and closing its phrase
  (punctuation or the end follows: 'The answer is "Bamberg" in German.') names a language, not
  the country; "in American politics" (a noun follows) is the adjective of a thing, judged by
  the mention rules; rules v7: a gold country's adjective joined by a hyphen to "speaking"
  ("a French-speaking person") names a language, not the country;
- :func:`quoted_rejection` (rules v7): every gold mention sits inside a quotation that the
  answer then calls wrong ('"Europe, France" is incorrect', '"Paris" is not the right answer'):
  the quoted words are rejected, not picked; rules v9: a quoted sentence (three words or more)
  that the answer calls an example, idiom, phrase, saying, ... ('"X and Y are both citizens of
  China" is a classic example of an idiom') is talked about, not asserted.
"""

from __future__ import annotations

from leak_metrics.judges.entity_rules import Span, predicate_start

# Words a copula may carry before "fictional" ("is indeed a purely fictional").
_FILLERS = frozenset({"indeed", "actually", "just", "merely", "simply", "purely", "entirely"})
_COPULAS = frozenset({"is", "was", "are", "were"})


def fictional_subject(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """The words "<copula> ... fictional" when the first copula's complement opens with
    "fictional" (articles are no tokens; fillers such as "indeed" may stand between), unless a
    gold mention describes that fiction itself within two words ("a fictional British
    detective" for a fictional subject's country)."""
    words = span.words
    verb = predicate_start(span)
    if verb >= len(words) or words[verb] not in _COPULAS:
        return None
    k = verb + 1
    while k < len(words) and words[k] in _FILLERS:
        k += 1
    if k < len(words) and words[k] == "fictional":
        if any(k < lo <= k + 2 for lo, _ in gold):
            return None
        return " ".join(words[verb : k + 2])
    return None


def language_use(span: Span, lo: int, hi: int, adjectives: list[list[str]]) -> bool:
    """The mention ``lo:hi`` is an adjective of the gold after "in" that closes its phrase, or
    joined by a hyphen to "speaking" ("French-speaking")."""
    words = span.words
    if words[lo:hi] not in adjectives:
        return False
    if hi < len(words) and words[hi] == "speaking" and span.gap(hi) == "-":
        return True
    if lo == 0 or words[lo - 1] != "in":
        return False
    if span.gap(lo).strip():
        return False  # "in the Austrian" (cut off) is no language: a language takes no article
    return hi == len(words) or not span.tight(hi)


_QUOTES = frozenset('"\u201c\u201d')
_WRONG = frozenset(
    {"incorrect", "wrong", "false", "invalid", "mistaken", "inaccurate", "untrue",
     # rules v11: a quotation disputed ("is often misinterpreted") is not asserted
     "misinterpreted", "misunderstood", "misquoted", "misleading", "disputed", "myth"}
)  # fmt: skip
# Adverbs between the copula and the word calling the quotation wrong ("is often wrong").
_HEDGE_ADVERBS = frozenset({"often", "commonly", "frequently", "widely", "sometimes", "usually"})
_RIGHT = frozenset({"correct", "right", "true", "accurate", "answer"})


def _closing_quote(text: str, start: int) -> int | None:
    """Index of the quote that closes a quotation open at character ``start`` (an odd number of
    quote marks before it), or None when ``start`` is outside quotes."""
    if sum(c in _QUOTES for c in text[:start]) % 2 == 0:
        return None
    return next((i for i in range(start, len(text)) if text[i] in _QUOTES), None)


def quoted_rejection(span: Span, gold: list[tuple[int, int]]) -> str | None:
    """The words calling the quotation wrong, when every gold mention lies inside a quotation
    followed by "is/are/was (not) ..." that calls it wrong ("is incorrect", "is not correct")."""
    found = None
    for lo, _ in gold:
        close = _closing_quote(span.text, span.tokens[lo].start)
        if close is None:
            return None
        after = [k for k, t in enumerate(span.tokens) if t.start > close][:4]
        said = [span.words[k] for k in after]
        if not said or said[0] not in _COPULAS:
            return None
        said = [said[0], *[w for w in said[1:] if w not in _HEDGE_ADVERBS]]  # rules v11
        negated = len(said) > 2 and said[1] == "not" and said[2] in _RIGHT
        quoted = sum(1 for t in span.tokens if close > t.start > _opening_quote(span.text, close))
        mentioned = quoted >= 3 and bool(_MENTION_NOUNS & set(said[1:]))
        if not (negated or mentioned or (len(said) > 1 and said[1] in _WRONG)):
            return None
        found = " ".join(said if mentioned else said[:3])
    return found


# Nouns that call a quotation a piece of language, not a claim (rules v9).
_MENTION_NOUNS = frozenset(
    {"example", "idiom", "phrase", "saying", "expression", "sentence", "cliche", "proverb"}
)


def _opening_quote(text: str, close: int) -> int:
    """Index of the quote that opens the quotation closed at ``close``."""
    return max((i for i in range(close) if text[i] in _QUOTES), default=-1)
