from kg_qgen.graph import Entity, Fact, KnowledgeGraph


def test_add_dedup_lookup_and_fact_dict():
    g = KnowledgeGraph()
    g.add_relation("P27", "country of citizenship")
    g.add_entity("Q615", "Lionel Messi", ["Leo Messi", "Lionel Messi", ""])
    g.add_entity("Q615", "Other label", ["Messi", "Leo Messi"])  # merge: first label wins
    g.add_entity("Q414", "Argentina")
    assert g.add_fact("Q615", "P27", "Q414", source="t:1") is True
    assert g.add_fact("Q615", "P27", "Q414", source="t:2") is False
    assert len(g) == 1
    assert g.entity("Q615") == Entity("Q615", "Lionel Messi", ("Leo Messi", "Messi"))
    assert g.label("Q414") == "Argentina" and g.aliases("Q414") == ()
    assert g.relation_label("P27") == "country of citizenship"
    assert g.relation_label("P999") == "P999"
    assert list(g.facts()) == [Fact("Q615", "P27", "Q414", "t:1")]
    assert g.fact_dict(Fact("Q615", "P27", "Q414")) == {
        "subject": "Lionel Messi",
        "relation": "country of citizenship",
        "object": "Argentina",
    }
    assert g.graph.number_of_edges() == 1
    assert g.graph.has_edge("Q615", "Q414", key="P27")


def test_unknown_entities_in_fact_are_created_with_id_label():
    g = KnowledgeGraph()
    g.add_fact("a", "r", "b")
    assert g.label("a") == "a" and g.relation_label("r") == "r"


def test_merge():
    a, b = KnowledgeGraph(), KnowledgeGraph()
    a.add_fact("x", "r", "y")
    b.add_entity("y", "Y", ["why"])
    b.add_fact("y", "r", "z")
    b.source_questions.append({"question": "q", "answer": "a", "record_id": "1"})
    a.merge(b)
    assert len(a) == 2 and a.aliases("y") == ("why",) and len(a.source_questions) == 1
