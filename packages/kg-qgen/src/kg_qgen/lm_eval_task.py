"""The ``utils.py`` of an exported lm-evaluation-harness task folder (``kg-qgen export --format
lm-eval``): the export copies this file verbatim, so it imports nothing but the standard library.

The harness calls three functions from the task YAML files:

- ``load_questions(qtype, **_)`` (``custom_dataset``): the ``questions.jsonl`` next to this file,
  the rows of one question type, as a ``datasets.DatasetDict`` with one ``test`` split.
- ``normalise_responses(resps, docs)`` (a ``custom`` filter): every response normalised the way
  leak-metrics' alias judge normalises text (NFKD accents dropped, case folded, ``n't`` -> ``not``,
  thousands separators removed, punctuation -> spaces, articles dropped, number words -> digits).
- ``process_results(doc, results)``: ``{"leak_match": 1.0 | 0.0}`` for the filtered response.

``leak_match`` is a *simplified* alias judge, written over the normalised words only: an entity
answer is correct when a gold form (the answer or one of its aliases) occurs as a run of whole
words, no other displayed option (``options`` minus the gold) occurs, and no refusal phrase occurs;
a yes/no answer (gold ``yes``/``no``) is decided by its first ``yes``/``no`` word, and is incorrect
without one or when both words occur. leak-metrics' alias judge has rules this one does not
reproduce (a negated gold, alternatives joined by "or", the answer the response commits to, a
yes/no read against the question), so ``leak_match`` can differ from leakres' accuracy either way
on single responses; ``leakres eval`` gives the benchmark's own numbers.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

QUESTIONS_FILE = "questions.jsonl"

_ARTICLES = frozenset({"a", "an", "the"})
_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = frozenset(_UNITS) | frozenset(_TENS) | frozenset(_SCALES)
_THOUSANDS_SEP = re.compile(r"(?<=\d),(?=\d{3}\b)")
_WORD = re.compile(r"[0-9a-z]+")
_REFUSALS = (
    "not know",
    "not sure",
    "no idea",
    "cannot answer",
    "cannot say",
    "cannot tell",
    "cannot determine",
    "unable to",
    "unsure",
    "not certain",
    "unclear",
    "unknown",
    "sorry",
    "no information",
    "impossible to say",
)


def _words_to_number(words: list[str]) -> int:
    total = current = 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[word]
            current = 0
    return total + current


def tokenize(text: str) -> list[str]:
    """Normalised words of ``text`` (the alias judge's normalisation, see the module docstring)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    folded = folded.casefold().replace("\u2019", "'").replace("n't", " not")
    folded = _THOUSANDS_SEP.sub("", folded)
    words = [w for w in _WORD.findall(folded) if w not in _ARTICLES]
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] not in _NUMBER_WORDS:
            out.append(words[i])
            i += 1
            continue
        run: list[str] = []
        while i < len(words) and (
            words[i] in _NUMBER_WORDS
            or (words[i] == "and" and run and i + 1 < len(words) and words[i + 1] in _NUMBER_WORDS)
        ):
            if words[i] != "and":
                run.append(words[i])
            i += 1
        out.append(str(_words_to_number(run)))
    return out


def normalise(text: str) -> str:
    return " ".join(tokenize(text))


def _contains(haystack: list[str], needle: list[str]) -> bool:
    width = len(needle)
    return bool(needle) and any(
        haystack[i : i + width] == needle for i in range(len(haystack) - width + 1)
    )


def leak_match(response: str, answer: str, aliases: list[str], options: list[str]) -> bool:
    """The simplified alias judge (module docstring) on a raw or already normalised response."""
    words = tokenize(response)
    gold = tokenize(answer)
    if gold in (["yes"], ["no"]):
        polar = [w for w in words if w in ("yes", "no")]
        return bool(polar) and len(set(polar)) == 1 and polar[0] == gold[0]
    text = " ".join(words)
    if any(f" {phrase} " in f" {text} " for phrase in _REFUSALS):
        return False
    forms = [tokenize(form) for form in [answer, *aliases]]
    if not any(_contains(words, form) for form in forms):
        return False
    wrong = [tokenize(o) for o in options if tokenize(o) not in forms]
    return not any(_contains(words, option) for option in wrong)


def normalise_responses(resps: list[list[str]], docs: Any) -> list[list[str]]:
    """The harness's ``custom`` filter: every response of every document normalised."""
    return [[normalise(r) for r in doc_resps] for doc_resps in resps]


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    response = results[0] if results else ""
    ok = leak_match(
        response,
        doc["answer"],
        list(doc.get("answer_aliases") or []),
        list(doc.get("options") or []),
    )
    return {"leak_match": 1.0 if ok else 0.0}


def read_questions(qtype: str, directory: str | Path | None = None) -> list[dict[str, Any]]:
    """The rows of ``qtype`` in the folder's ``questions.jsonl``, with the nested fields kept as
    JSON strings (``target``, ``premises``, ``source``) so that every row has one flat schema."""
    path = Path(directory or Path(__file__).parent) / QUESTIONS_FILE
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            q = json.loads(line)
            if q["type"] != qtype:
                continue
            rows.append(
                {
                    "id": q["id"],
                    "type": q["type"],
                    "question": q["question"],
                    "answer": q["answer"],
                    "answer_aliases": list(q.get("answer_aliases") or []),
                    "options": list(q.get("options") or []),
                    "instruction": str(q.get("instruction") or ""),
                    "target": json.dumps(q.get("target"), ensure_ascii=False),
                }
            )
    return rows


def load_questions(qtype: str, **_: Any) -> Any:
    """``custom_dataset`` of every task: ``{"test": Dataset}`` of ``qtype``'s rows (the harness
    passes its metadata as keyword arguments too; they are ignored)."""
    import datasets

    return datasets.DatasetDict({"test": datasets.Dataset.from_list(read_questions(qtype))})
