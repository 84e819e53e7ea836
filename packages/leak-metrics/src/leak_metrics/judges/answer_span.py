"""The stop rule: where the answer a response commits to ends.

A response commits to what its *first answer sentence* says; what follows (a second sentence, a
correction, a list of "fun facts") is not the answer. The judges read only this span, and a
decoder may stop generating where it ends (:func:`answer_stop`).

The first answer sentence ends at the first sentence end outside an abbreviation:

- ``.``, ``!`` or ``?`` followed by whitespace, a closing quote/bracket or the end of the text;
- a line break (``\\n``) after some text;

except that a ``.`` does not end the sentence after a single letter ("U.S.", "J. R. R."), after
a known abbreviation ("Jr.", "St.", "Inc.", "Dr.", ... :data:`ABBREVIATIONS`) or between digits
("1.5", never followed by a space), unless a sentence opener follows it ("born in the U.S. He
was ...": He, She, It, They, The, This, ...). A first sentence that ends with ``:`` (a lead-in such as "The answer is:") or that
holds no word, or only a list marker ("1. Germany", rules v8), is not an answer sentence; the
span then runs on to the end of the next one.

:data:`ANSWER_STOP_STRINGS` are the strings at which a decoder may *check* for the stop (every
stop ends with one of them); the check itself is :func:`answer_stop`, because ". " also occurs
inside "D.C. is".
"""

from __future__ import annotations

import re

ANSWER_STOP_STRINGS: tuple[str, ...] = (". ", ".\n", "! ", "!\n", "? ", "?\n", "\n")
"""Every answer stop ends with one of these (plus the end of the text); see :func:`answer_stop`."""

ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "vs",
        "etc", "no", "mt", "ft", "gen", "gov", "sen", "rep", "rev", "lt", "col", "capt", "e.g",
        "i.e", "approx", "dept", "univ", "est", "ca", "cf", "op", "vol", "jan", "feb", "mar",
        "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "d.c", "u.s", "u.k",
    }
)  # fmt: skip
"""Words after which a period does not end a sentence (compared case-folded, without the dot)."""

_END = re.compile(r"[.!?]+(?=[\s\"'”’)\]]|$)|\n")
_WORD = re.compile(r"\w")
_LAST_WORD = re.compile(r"([\w.]+)$")
# A list marker alone ("1. Germany"): a number opening a list, no sentence (rules v8).
_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s*$")
# A word that opens a new sentence after an abbreviation's dot ("born in the U.S. He was").
_OPENER = re.compile(r"\s+(He|She|It|They|The|This|That|There|These|His|Her|Its|In|We|I)\b")


def is_abbreviation(text: str, dot: int) -> bool:
    """True when the ``.`` at ``dot`` closes an abbreviation or a single letter."""
    match = _LAST_WORD.search(text[:dot])
    if match is None:
        return False
    word = match.group(1).strip(".").casefold()
    if len(word) == 1 and word.isalpha():
        return True  # "U.S.", "J. R. R. Tolkien", "D.C."
    if word in ABBREVIATIONS:
        return True
    # "U.S" / "D.C" written with inner dots: every piece one letter (not "8.1": a number's last
    # dot, as in "Windows Phone 8.1. Thus ...", ends the sentence)
    pieces = word.split(".")
    return len(pieces) > 1 and all(len(p) == 1 and p.isalpha() for p in pieces)


MAX_LEAD_INS = 2
"""Non-answer opening sentences (:func:`is_lead_in`) the span may run past ("Great question!
Let me think. Paris is ..."); a third such sentence is read as the answer sentence."""


def _sentence_ends(text: str) -> list[tuple[int, bool]]:
    """Each end of an answer-span piece in ``text``, in order, up to and including the answer
    sentence's end: ``(end, lead_in)``, where ``lead_in`` marks a non-answer opening sentence the
    commitment passes over (the last entry, with ``False``, ends the answer sentence)."""
    ends: list[tuple[int, bool]] = []
    start = 0  # where the current piece begins (after the last lead-in sentence)
    for match in _END.finditer(text):
        end = match.end()
        piece = text[start:end]
        if (
            match.group(0) == "."
            and is_abbreviation(text, match.start())
            and not _OPENER.match(text, end)
        ):
            continue  # "D.C. is", "J. R. R. Tolkien", but "the U.S. He was" ends
        if not _WORD.search(piece) or piece.rstrip().endswith(":") or _MARKER.match(piece):
            continue  # empty line, a lead-in ("The answer is:") or "1.": the answer follows
        if len(ends) < MAX_LEAD_INS and is_lead_in(piece.strip()):
            ends.append((end, True))  # "That's a good question.": the next sentence answers
            start = end
            continue
        ends.append((end, False))
        return ends
    return ends


def answer_stop(text: str) -> int | None:
    """Index in ``text`` just past the committed answer (its first answer sentence, after any
    non-answer opening sentences), or ``None`` when that sentence has not ended yet (a decoder
    keeps generating)."""
    ends = _sentence_ends(text)
    return ends[-1][0] if ends and not ends[-1][1] else None


def committed_answer(text: str) -> str:
    """The part of ``text`` the response commits to: its first answer sentence, with the
    non-answer sentences before it (the whole text when that sentence never ends, e.g. a
    response cut off by the token limit)."""
    stop = answer_stop(text)
    return (text if stop is None else text[:stop]).strip()


def split_lead_in(committed: str) -> tuple[str, str]:
    """``(lead-in, answer)`` of a committed answer: its non-answer opening sentences and the
    answer sentence after them; ``("", committed)`` when it opens with no lead-in or holds no
    answer sentence after it (a response that ends after "Let me think.")."""
    ends = _sentence_ends(committed)
    leads = [end for end, lead in ends if lead]
    if not leads or leads[-1] >= len(committed.rstrip()):
        return "", committed
    return committed[: leads[-1]].strip(), committed[leads[-1] :].strip()


# A first sentence about answering rather than an answer ("That's a great question.", "To
# determine this, we need to examine the given information.", "Let me think."): it opens with
# one of these words and speaks of the question or of working it out.
_LEAD_OPENERS = re.compile(
    r"^\W*(?:to|let|let's|i|i'm|i'll|we|we'll|this|that|that's|it|it's|great|good|interesting|"
    r"sure|certainly|okay|ok|well|hmm|first|here|in\s+order\s+to|what\s+a)\b",
    re.IGNORECASE,
)
_LEAD_WORDS = re.compile(
    r"\b(?:question|determine|think|consider|examine|analy[sz]e|analysis|look|need|help|explain|"
    r"break\s+(?:it|this)\s+down|step|understand|figure|reason|tricky|interesting)\b",
    re.IGNORECASE,
)
# words that make the sentence a refusal or an answer after all
_NOT_LEAD = re.compile(
    r"\b(?:not|no|n't|sorry|unable|cannot|unknown|yes|answer\s+is|answer\s+would\s+be)\b",
    re.IGNORECASE,
)


# A bare interjection is a lead-in too ("Sure!", "Of course.", "Great question!").
_INTERJECTION = re.compile(
    r"^\W*(?:sure|certainly|of\s+course|absolutely|great|good|okay|ok|well|hmm+|alright)"
    r"(?:\s+question)?\W*$",
    re.IGNORECASE,
)


def is_lead_in(sentence: str) -> bool:
    """The committed sentence is a non-answer opening (see above): the commitment passes to the
    next sentence (:func:`next_answer`)."""
    if _INTERJECTION.match(sentence):
        return True
    return (
        _LEAD_OPENERS.match(sentence) is not None
        and _LEAD_WORDS.search(sentence) is not None
        and _NOT_LEAD.search(sentence) is None
    )
