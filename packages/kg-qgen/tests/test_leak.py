from kg_qgen.graph import KnowledgeGraph
from kg_qgen.verify.deterministic import (
    AnswerPresentCheck,
    DuplicateCheck,
    PremiseCheck,
    default_checks,
)
from kg_qgen.verify.leak import LeakCheck, find_leak


def rec(question, answer="Europe", aliases=(), bridge=None, type_="HS", **extra):
    return {
        "id": "X-1",
        "type": type_,
        "question": question,
        "answer": answer,
        "answer_aliases": list(aliases),
        "bridge": bridge,
        **extra,
    }


def test_bridge_label_and_alias_case_punctuation_insensitive():
    assert find_leak(rec("Which continent is FRANCE in?", bridge="France"))
    assert find_leak(rec("Is it in france?!", bridge="France"))
    g = KnowledgeGraph()
    g.add_entity("fr", "France", ["French Republic"])
    r = rec("Which continent is the french-republic on?", bridge="France", bridge_id="fr")
    assert "bridge" in find_leak(r, g)


def test_whole_word_only():
    assert find_leak(rec("Where was Francesca born?", bridge="France")) is None
    assert find_leak(rec("Where is Europeana based?")) is None
    assert find_leak(rec("Which continent, Europe?")) is not None


def test_answer_aliases_and_accents():
    assert find_leak(rec("Capital of the USA?", answer="United States", aliases=["USA"]))
    assert find_leak(rec("Who is Jose Mourinho?", answer="José Mourinho"))
    assert find_leak(rec("Who?", answer="José Mourinho")) is None


def test_ds_answer_allowed_only_as_option():
    ok = rec(
        "Is it Paris, Rome or Tokyo? It is not Rome.",
        answer="Paris",
        type_="DS",
        options=["Paris", "Rome", "Tokyo"],
    )
    assert find_leak(ok) is None
    twice = rec(
        "Paris is nice. Is it Paris, Rome or Tokyo?",
        answer="Paris",
        type_="DS",
        options=["Paris", "Rome", "Tokyo"],
    )
    assert "outside the option list" in find_leak(twice)
    few = rec("Paris or Rome?", answer="Paris", type_="DS", options=["Paris", "Rome"])
    assert "< 3" in find_leak(few)


def test_checks_return_rejects_with_reasons():
    g = KnowledgeGraph()
    g.add_entity("a", "Alpha")
    g.add_entity("b", "Beta")
    g.add_relation("r", "rel")
    g.add_fact("a", "r", "b", source="t:1")
    base = {
        "id": "SH-1",
        "type": "SH",
        "question": "What is the rel of Alpha?",
        "answer": "Beta",
        "answer_aliases": [],
        "bridge": None,
        "target": {"subject": "Alpha", "relation": "rel", "object": "Beta"},
        "premises": [{"subject": "Alpha", "relation": "rel", "object": "Beta"}],
        "options": [],
        "source": {"dataset": "t", "record_id": "1"},
        "target_ids": {"subject": "a", "relation": "r", "object": "b"},
        "premise_ids": [{"subject": "a", "relation": "r", "object": "b"}],
        "answer_id": "b",
    }
    dup = {**base, "id": "SH-2", "question": "what is the REL of alpha"}
    leak = {**base, "id": "SH-3", "question": "Is the rel of Alpha Beta?"}
    bad_premise = {
        **base,
        "id": "SH-4",
        "question": "Q4?",
        "premise_ids": [{"subject": "b", "relation": "r", "object": "a"}],
    }
    empty = {**base, "id": "SH-5", "question": "  ?  "}
    records = [base, dup, leak, bad_premise, empty]
    assert [r.record["id"] for r in DuplicateCheck()(records[:2], g)] == ["SH-2"]
    assert [r.record["id"] for r in LeakCheck()(records, g)] == ["SH-3"]
    assert [r.record["id"] for r in PremiseCheck()(records, g)] == ["SH-4"]
    assert [r.record["id"] for r in AnswerPresentCheck()(records, g)] == ["SH-5"]
    assert [c.name for c in default_checks()] == [
        "answer_present",
        "premises",
        "relation_label",
        "logic",
        "leak",
        "shortcut",
        "style",
        "duplicate",
        "duplicate_facts",
    ]


def test_demonyms_and_shared_words_of_the_bridge_leak():
    g = KnowledgeGraph()
    g.add_entity("ar", "Argentina", ["Argentine Republic"])
    g.add_entity("wm", "Willy Messerschmitt")
    anthem = rec("Which continent is the country of Argentine National Anthem on?", bridge_id="ar")
    assert "demonym" in find_leak({**anthem, "bridge": "Argentina"}, g)
    founder = rec("Where was Messerschmitt AG's founder born?", bridge="Willy Messerschmitt")
    assert "shares the word 'messerschmitt'" in find_leak(founder, g)
    # short words and function words are no giveaway
    assert find_leak(rec("Who founded Willing Co?", bridge="Willy Messerschmitt"), g) is None
    assert find_leak(rec("Which film is about the Wind?", bridge="Gone with the Wind"), g)
    assert find_leak(rec("Which film came with it?", bridge="Gone with the Wind"), g) is None
    # the answer's demonym leaks too, except as a DS option itself
    assert "demonym of the answer" in find_leak(
        rec("Where is the Argentine team from?", answer="Argentina"), g
    )
