"""Source facts that give a question with no single right answer (issue 21, round-two reading):
a containment fact with a chain of containers, a sport given to someone outside sport, and a
former organisation name listed as an alias. Small graphs built here; names are illustrative."""

import pytest
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.pipeline import build
from kg_qgen.semantics.aliases import alias_problem

ONLY_ME = {"e"}


def _places() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_relation("P131", "located in the administrative territorial entity")
    g.add_relation("P31", "instance of")
    g.add_relation("P36", "capital")
    g.add_entity("Q515", "city")
    g.add_fact("arena", "P131", "rome")  # rome: a capital, so a city
    g.add_fact("italy", "P36", "rome")
    g.add_fact("villa", "P131", "lazio")  # lazio: only a container, class unknown
    g.add_fact("tower", "P131", "pisa")
    g.add_fact("pisa", "P31", "Q515")  # a city by its P31 fact
    return g


def test_containment_is_asked_only_down_to_a_city():
    idx = GraphIndex.build(_places())
    assert idx.is_unique("arena", "P131") and idx.is_unique("tower", "P131")
    assert not idx.is_unique("villa", "P131")
    assert "containers" in (idx.fact_problem("villa", "P131", "lazio") or "")
    sh = find_matches(idx, "SH", MatchConfig(), seed=0)
    assert {m.target.subject for m in sh if m.target.relation == "P131"} == {"arena", "tower"}


def test_containment_questions_name_the_city_level():
    result = build(_places(), types=("SH",), per_type=10, seed=0)
    asked = [q["question"] for q in result.questions if q["target"]["relation"].startswith("loc")]
    assert asked, result.shortfall
    for text in asked:
        assert "city" in text and "region" not in text, text
    assert result.verification["ok"]


def _sport_graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    for rid, label in [
        ("P641", "sport"),
        ("P50", "author"),
        ("P1037", "director / manager"),
        ("P286", "head coach"),
        ("P413", "position played on team / speciality"),
        ("P106", "occupation"),
        ("P27", "country of citizenship"),
    ]:
        g.add_relation(rid, label)
    g.add_fact("writer", "P641", "baseball")
    g.add_fact("book", "P50", "writer")  # an author, nothing in sport
    g.add_fact("tycoon", "P641", "football")
    g.add_fact("drinks_co", "P1037", "tycoon")  # runs a company with no sport
    g.add_fact("coach", "P641", "football")
    g.add_fact("club", "P286", "coach")  # head coach: in sport
    g.add_fact("player", "P641", "basketball")
    g.add_fact("player", "P413", "guard")
    g.add_fact("athlete", "P641", "tennis")  # no role either way: kept (CounterFact-like)
    g.add_fact("athlete", "P27", "spain")
    g.add_fact("pundit", "P641", "football")
    g.add_fact("pundit", "P106", "association football player")  # occupation names the sport
    g.add_fact("pundit", "P50", "memoir")
    g.add_fact("novelist", "P641", "cricket")
    g.add_fact("novelist", "P106", "writer_occ")
    g.add_entity("writer_occ", "novelist")
    return g


@pytest.mark.parametrize(
    ("subject", "refused"),
    [
        ("writer", True),
        ("tycoon", True),
        ("novelist", True),
        ("coach", False),
        ("player", False),
        ("athlete", False),
        ("pundit", False),
    ],
)
def test_a_sport_is_asked_only_of_someone_not_outside_sport(subject, refused):
    idx = GraphIndex.build(_sport_graph())
    why = idx.fact_problem(subject, "P641", idx.objects(subject, "P641")[0])
    assert (why is not None) == refused, why
    assert idx.is_unique(subject, "P641") != refused


def test_a_refused_sport_fact_reaches_no_question():
    g = _sport_graph()
    result = build(g, per_type=20, seed=0)
    for q in result.questions:
        for p in q["premises"]:
            if p["relation"] == "sport":
                assert p["subject"] not in ("writer", "tycoon", "novelist"), q["question"]


@pytest.mark.parametrize(
    ("alias", "label"),
    [
        ("Apple Computer Inc.", "Apple Inc."),
        ("Apple Computer, Inc.", "Apple Inc."),
        ("Walt Disney Productions", "The Walt Disney Company"),
        ("Tesla Motors", "Tesla, Inc."),
    ],
)
def test_an_organisation_name_with_other_words_is_refused(alias, label):
    got = alias_problem(alias, label, ONLY_ME, "e", entity_class="organization")
    assert got is not None and "former" in got


@pytest.mark.parametrize(
    ("alias", "label", "cls"),
    [
        ("Manchester United Football Club", "Manchester United F.C.", "team"),  # initials
        ("Big Blue", "IBM", "organization"),  # no word of the label: another name
        ("Hellenic Republic", "Greece", "country"),
        ("Samuel Langhorne Clemens", "Mark Twain", "person"),
    ],
)
def test_other_organisation_and_non_organisation_aliases_are_kept(alias, label, cls):
    assert alias_problem(alias, label, ONLY_ME, "e", entity_class=cls) is None


def test_subject_labels_that_name_many_things_are_not_asked():
    g = KnowledgeGraph()
    g.add_relation("P175", "performer")
    g.add_relation("P641", "sport")
    g.add_relation("P413", "position played on team / speciality")
    g.add_entity("album", "1")  # a Beatles album: "which artist does X share with 1?"
    g.add_fact("album", "P175", "beatles")
    g.add_fact("song", "P175", "beatles")
    g.add_entity("c", "center")  # basketball, ice hockey and American football have one
    g.add_fact("c", "P641", "basketball")
    g.add_entity("pg", "point guard")
    g.add_fact("pg", "P641", "basketball")
    g.add_fact("player", "P413", "c")
    idx = GraphIndex.build(g)
    assert "no letter" in (idx.fact_problem("album", "P175", "beatles") or "")
    assert "several sports" in (idx.fact_problem("c", "P641", "basketball") or "")
    assert idx.fact_problem("pg", "P641", "basketball") is None
    assert idx.is_unique("song", "P175") and idx.is_unique("player", "P413")
    result = build(g, types=("SH", "CC"), per_type=10, seed=0)
    asked = {q["target"]["subject"] for q in result.questions}
    assert "1" not in asked and "center" not in asked and "point guard" in asked


def test_a_persons_relation_is_not_asked_of_a_non_person():
    """MQuAKE gives the University of Coimbra a country of citizenship; the graph takes it for
    an organisation (its P31), so the fact is refused; a subject with nothing but the fact is
    taken for a person and asked."""
    g = KnowledgeGraph()
    g.add_relation("P27", "country of citizenship")
    g.add_relation("P31", "instance of")
    g.add_entity("Q3918", "university")
    g.add_fact("coimbra_uni", "P27", "portugal")
    g.add_fact("coimbra_uni", "P31", "Q3918")
    g.add_fact("pessoa", "P27", "portugal")
    idx = GraphIndex.build(g)
    assert idx.entity_class("pessoa") == "person"
    assert idx.entity_class("coimbra_uni") != "person"
    assert "only a person has" in (idx.fact_problem("coimbra_uni", "P27", "portugal") or "")
    assert idx.fact_problem("pessoa", "P27", "portugal") is None
    sh = find_matches(idx, "SH", MatchConfig(), seed=0)
    assert {m.target.subject for m in sh} == {"pessoa"}
