"""Raw-text source: chunking, LLM extraction, normalisation, filtering and graph building.

The LLM is :class:`kg_qgen.llm.testing.ScriptedChatServer` (stdlib ``http.server`` on 127.0.0.1,
started by the test): a scripted stand-in for a real OpenAI-compatible endpoint.
"""

from __future__ import annotations

import json

import pytest
from kg_qgen.errors import KgQgenInputError
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.testing import Reply, ScriptedChatServer
from kg_qgen.sources.registry import load_source
from kg_qgen.sources.text import chunk_text, clean_triple, load_text, split_sentences

TEXT = (
    "Ada Lovelace was born in London. She worked with Charles Babbage! "
    "Babbage designed the Analytical Engine. Was London the capital of England? Yes it was. "
    "Marie Curie was born in Warsaw. Curie won two Nobel Prizes."
)


def test_chunks_keep_sentences_whole_and_respect_the_size() -> None:
    sentences = split_sentences(TEXT)
    assert sentences[1] == "She worked with Charles Babbage!"
    assert len(sentences) == 7
    chunks = chunk_text(TEXT, chunk_words=12)
    assert " ".join(chunks) == " ".join(TEXT.split())
    for c in chunks:
        assert len(c.split()) <= 12
        assert c.endswith((".", "!", "?"))  # no sentence is cut
    long = "word " * 30 + "end."
    assert chunk_text(long + " Short one.", chunk_words=10) == [long.strip(), "Short one."]
    with pytest.raises(ValueError):
        chunk_text(TEXT, chunk_words=0)


def test_clean_triple_normalises_and_filters() -> None:
    assert clean_triple('  "Ada  Lovelace" ', "Place Of  Birth", "London.") == (
        ("Ada Lovelace", "place of birth", "London"),
        None,
    )
    assert clean_triple("She", "worked with", "Babbage") == (None, "pronoun as subject")
    assert clean_triple("Ada", "born in", "ada") == (None, "subject equals object")
    assert clean_triple("", "x", "y") == (None, "empty part")
    too_long = "a b c d e f g h i"
    assert clean_triple("Ada", "knew", too_long) == (None, "object longer than 8 words")


def _script(body: dict, n: int) -> Reply:
    user = body["messages"][-1]["content"]
    assert "(subject, relation, object)" in user and '"triples"' in user
    chunk = user.split('"""')[1]
    triples = []
    if "Lovelace" in chunk:
        triples += [
            {"subject": "Ada Lovelace", "relation": "Place of Birth", "object": "London"},
            {"subject": "She", "relation": "worked with", "object": "Charles Babbage"},
            ["Charles Babbage", "designed", "Analytical Engine"],
            {"subject": "ada lovelace", "relation": "place of birth", "object": "london."},
            {"subject": "Ada Lovelace", "relation": "place of birth"},
            {"subject": "London", "relation": "capital of", "object": "England"},
        ]
    if "Curie" in chunk:
        triples += [
            {"subject": "Marie Curie", "relation": "place of birth", "object": "Warsaw"},
            {"subject": "Curie", "relation": "won", "object": "Curie"},
            {
                "subject": "Marie Curie",
                "relation": "award",
                "object": "one two three four five six seven eight nine",
            },
        ]
    return Reply(content="Here you go:\n" + json.dumps({"triples": triples}))


def test_load_text_builds_a_clean_graph(tmp_path) -> None:
    path = tmp_path / "bio.txt"
    path.write_text(TEXT, encoding="utf-8")
    with ScriptedChatServer(_script) as server:
        backend = OpenAIBackend(server.base_url, "extractor")
        kg = load_source("text", path, backend=backend, chunk_words=20)
        n_requests = len(server.requests)
    assert n_requests == len(chunk_text(TEXT, 20)) >= 2
    facts = {
        (kg.label(f.subject), kg.relation_label(f.relation), kg.label(f.object)) for f in kg.facts()
    }
    assert facts == {
        ("Ada Lovelace", "place of birth", "London"),
        ("Charles Babbage", "designed", "Analytical Engine"),
        ("London", "capital of", "England"),
        ("Marie Curie", "place of birth", "Warsaw"),
    }
    # both spellings of Ada Lovelace collapse into one slug-id entity, the variant is an alias
    assert kg.has_entity("ada_lovelace") and kg.aliases("ada_lovelace") == ("ada lovelace",)
    assert kg.relations["place_of_birth"] == "place of birth"
    assert {f.source.split("#")[0] for f in kg.facts()} == {"text:bio.txt"}
    report = kg.extraction_report
    assert report["triples"] == 4 and report["failed_chunks"] == 0
    assert report["dropped"] == {
        "pronoun as subject": 1,
        "duplicate": 1,
        "empty part": 1,
        "subject equals object": 1,
        "object longer than 8 words": 1,
    }


def test_load_text_errors_are_clear(tmp_path) -> None:
    with pytest.raises(ValueError, match="needs an LLM backend"):
        load_text(tmp_path / "x.txt")
    with ScriptedChatServer(lambda b, n: Reply(content="nothing to extract")) as server:
        backend = OpenAIBackend(server.base_url, "extractor")
        with pytest.raises(KgQgenInputError, match=r"missing\.txt: file not found"):
            load_text(tmp_path / "missing.txt", backend)
        empty = tmp_path / "empty.txt"
        empty.write_text("  \n", encoding="utf-8")
        with pytest.raises(KgQgenInputError, match="the file is empty"):
            load_text(empty, backend)
        path = tmp_path / "t.txt"
        path.write_text(TEXT, encoding="utf-8")
        with pytest.raises(KgQgenInputError, match="no usable triple extracted") as info:
            load_text(path, backend, max_parse_retries=1)
    assert "chunk 0: unusable reply after 2 attempt(s)" in str(info.value)
