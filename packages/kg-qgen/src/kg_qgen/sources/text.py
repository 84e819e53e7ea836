"""Raw text -> KnowledgeGraph through LLM triple extraction.

Steps:

1. Split the text into sentences (after ``.``, ``!`` or ``?`` followed by white space) and pack
   them into chunks of at most ``chunk_words`` words, never cutting a sentence (a sentence longer
   than ``chunk_words`` becomes a chunk of its own).
2. Ask the LLM for the ``(subject, relation, object)`` facts of each chunk with the documented
   prompt :func:`kg_qgen.llm.prompts.extraction_prompt` (a JSON list of triples), re-asking on an
   unusable reply up to ``max_parse_retries`` times.
3. Normalise every part (strip quotes and trailing punctuation, collapse white space; relations in
   lower case), drop low-quality tuples (an empty part, a part longer than ``max_part_words``
   words, subject equal to object, a pronoun as subject) and de-duplicate (case- and
   accent-insensitive).
4. Build entities and relations with slug ids (:func:`kg_qgen.graph.slugify`); the first surface
   form of an entity is its label, later variants with the same slug become aliases.

Every dropped tuple and failed chunk is kept in the :class:`TextExtraction` report (and logged),
so nothing disappears silently.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg_qgen.errors import KgQgenInputError
from kg_qgen.graph import KnowledgeGraph, slugify
from kg_qgen.llm.ask import ask_json
from kg_qgen.llm.backend import LLMBackend
from kg_qgen.llm.jsonparse import ParseError, extract_json
from kg_qgen.llm.prompts import extraction_prompt
from kg_qgen.textnorm import normalize

__all__ = [
    "PRONOUNS",
    "TextExtraction",
    "chunk_text",
    "clean_triple",
    "extract_triples",
    "load_text",
    "parse_triples",
    "split_sentences",
]

log = logging.getLogger(__name__)

PRONOUNS = frozenset(
    [
        "i",
        "me",
        "you",
        "he",
        "him",
        "she",
        "her",
        "it",
        "we",
        "us",
        "they",
        "them",
        "this",
        "that",
        "these",
        "those",
        "his",
        "hers",
        "its",
        "their",
        "theirs",
        "our",
        "ours",
        "my",
        "mine",
        "your",
        "yours",
        "who",
        "which",
        "one",
        "someone",
        "something",
    ]
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_STRIP = " \t\n\"'`“”‘’.,;:!?()[]{}"


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, white space collapsed."""
    flat = " ".join(text.split())
    return [s for s in _SENTENCE_END.split(flat) if s]


def chunk_text(text: str, chunk_words: int = 200) -> list[str]:
    """Chunks of at most ``chunk_words`` words made of whole sentences."""
    if chunk_words < 1:
        raise ValueError(f"chunk_words must be >= 1, got {chunk_words}")
    chunks: list[str] = []
    current: list[str] = []
    n = 0
    for sentence in split_sentences(text):
        words = len(sentence.split())
        if current and n + words > chunk_words:
            chunks.append(" ".join(current))
            current, n = [], 0
        current.append(sentence)
        n += words
    if current:
        chunks.append(" ".join(current))
    return chunks


def parse_triples(text: str) -> list[tuple[str, str, str]]:
    """Raw triples from an extraction reply: ``{"triples": [...]}`` or a bare JSON list.

    Each item is ``{"subject", "relation", "object"}`` or a 3-item list. Items of another shape
    are skipped here and counted as malformed by :func:`extract_triples`' caller.
    """
    try:
        obj: Any = extract_json(text, dict)
        items = obj.get("triples")
        if items is None:
            raise ParseError('the object has no "triples" list')
    except ParseError:
        items = extract_json(text, list)
    if not isinstance(items, list):
        raise ParseError('"triples" must be a list')
    out = []
    for item in items:
        if isinstance(item, dict):
            parts = (item.get("subject"), item.get("relation"), item.get("object"))
        elif isinstance(item, list | tuple) and len(item) == 3:
            parts = tuple(item)
        else:
            out.append(("", "", ""))  # malformed: reported as an empty part
            continue
        out.append(tuple("" if p is None else str(p) for p in parts))  # type: ignore[arg-type]
    return out


def _clean(part: str) -> str:
    return " ".join(part.split()).strip(_STRIP)


def clean_triple(
    subject: str, relation: str, obj: str, max_part_words: int = 8
) -> tuple[tuple[str, str, str] | None, str | None]:
    """The normalised triple, or None with the reason it is dropped."""
    s, r, o = _clean(subject), _clean(relation).lower(), _clean(obj)
    if not (s and r and o):
        return None, "empty part"
    for name, part in (("subject", s), ("relation", r), ("object", o)):
        if len(part.split()) > max_part_words:
            return None, f"{name} longer than {max_part_words} words"
    if normalize(s) == normalize(o):
        return None, "subject equals object"
    if normalize(s) in PRONOUNS:
        return None, "pronoun as subject"
    if not normalize(s) or not normalize(o) or not normalize(r):
        return None, "no letters or digits"
    return (s, r, o), None


@dataclass
class TextExtraction:
    """Result of :func:`extract_triples`: kept triples and everything that was dropped."""

    triples: list[tuple[str, str, str, int]] = field(default_factory=list)  # (s, r, o, chunk)
    dropped: list[tuple[tuple[str, str, str], str]] = field(default_factory=list)
    failed_chunks: list[tuple[int, str]] = field(default_factory=list)
    n_chunks: int = 0
    # entity slug -> every surface form seen for it (first = label), duplicates included
    surface_forms: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "chunks": self.n_chunks,
            "failed_chunks": len(self.failed_chunks),
            "triples": len(self.triples),
            "dropped": dict(Counter(reason for _, reason in self.dropped)),
        }


def extract_triples(
    text: str,
    backend: LLMBackend,
    chunk_words: int = 200,
    max_part_words: int = 8,
    max_parse_retries: int = 1,
    max_tokens: int = 512,
) -> TextExtraction:
    """Chunk ``text``, extract triples per chunk with the LLM, clean and de-duplicate them."""
    chunks = chunk_text(text, chunk_words)
    report = TextExtraction(n_chunks=len(chunks))
    answers = ask_json(
        backend,
        [extraction_prompt(c) for c in chunks],
        parse_triples,
        max_parse_retries=max_parse_retries,
        max_tokens=max_tokens,
    )
    seen: set[tuple[str, str, str]] = set()
    for k, (raw, error) in enumerate(answers):
        if raw is None:
            report.failed_chunks.append((k, error or "unknown error"))
            log.warning("text chunk %d: %s", k, error)
            continue
        for s, r, o in raw:
            triple, why = clean_triple(s, r, o, max_part_words)
            if triple is None:
                report.dropped.append(((s, r, o), why or "dropped"))
                continue
            for form in (triple[0], triple[2]):
                forms = report.surface_forms.setdefault(slugify(form), [])
                if form not in forms:
                    forms.append(form)
            key = (normalize(triple[0]), triple[1], normalize(triple[2]))
            if key in seen:
                report.dropped.append((triple, "duplicate"))
                continue
            seen.add(key)
            report.triples.append((*triple, k))
    return report


def load_text(
    path: str | Path,
    backend: LLMBackend | None = None,
    chunk_words: int = 200,
    max_part_words: int = 8,
    max_parse_retries: int = 1,
    max_tokens: int = 512,
) -> KnowledgeGraph:
    """Read a UTF-8 text file and build a graph from the facts an LLM extracts from it.

    The extraction report is logged and attached as ``graph.extraction_report`` (a dict).
    Raises :class:`~kg_qgen.errors.KgQgenInputError` for a missing/empty file or when no usable
    triple comes out.
    """
    if backend is None:
        raise ValueError(
            "the text source needs an LLM backend: load_text(path, backend=...) "
            "(command line: --llm-backend and --llm-model)"
        )
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as err:
        raise KgQgenInputError("file not found", path=str(path)) from err
    except UnicodeDecodeError as err:
        raise KgQgenInputError(f"not UTF-8 text ({err.reason})", path=str(path)) from err
    if not text.strip():
        raise KgQgenInputError("the file is empty", path=str(path))
    report = extract_triples(
        text, backend, chunk_words, max_part_words, max_parse_retries, max_tokens
    )
    log.info("text source %s: %s", path, report.summary())
    if not report.triples:
        reasons = "; ".join(f"chunk {k}: {why}" for k, why in report.failed_chunks[:3])
        raise KgQgenInputError(
            f"no usable triple extracted ({report.summary()}){': ' + reasons if reasons else ''}",
            path=str(path),
        )
    kg = KnowledgeGraph()
    for s, r, o, k in report.triples:
        rel_id = slugify(r)
        kg.add_relation(rel_id, r)
        for label in (s, o):
            forms = report.surface_forms.get(slugify(label), [label])
            kg.add_entity(slugify(label), forms[0], forms[1:])  # other spellings -> aliases
        kg.add_fact(slugify(s), rel_id, slugify(o), source=f"text:{path.name}#chunk{k}")
    kg.extraction_report = report.summary()  # type: ignore[attr-defined]
    return kg
