"""Every matcher on a hand-built graph whose matches are known exactly."""

import random

import pytest
from kg_qgen.graph import Fact, KnowledgeGraph
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches, get_matcher

ALL = MatchConfig(max_per_target=100)


def world() -> KnowledgeGraph:
    """3 people, 3 countries, 2 continents, 3 capitals."""
    g = KnowledgeGraph()
    for rid, label in [("P27", "country of citizenship"), ("P30", "continent"), ("P36", "capital")]:
        g.add_relation(rid, label)
    g.add_entity("fr", "France", ["French Republic"])
    g.add_entity("de", "Germany", ["Deutschland"])
    g.add_entity("jp", "Japan")
    for e, lab in [
        ("eu", "Europe"),
        ("as", "Asia"),
        ("pa", "Paris"),
        ("be", "Berlin"),
        ("to", "Tokyo"),
        ("zz", "Zinedine Zidane"),
        ("am", "Angela Merkel"),
        ("hm", "Haruki Murakami"),
    ]:
        g.add_entity(e, lab)
    for s, r, o in [
        ("zz", "P27", "fr"),
        ("am", "P27", "de"),
        ("hm", "P27", "jp"),
        ("fr", "P30", "eu"),
        ("de", "P30", "eu"),
        ("jp", "P30", "as"),
        ("fr", "P36", "pa"),
        ("de", "P36", "be"),
        ("jp", "P36", "to"),
    ]:
        g.add_fact(s, r, o)
    return g


def triples(matches, attr="target"):
    return {
        (getattr(m, attr).subject, getattr(m, attr).relation, getattr(m, attr).object)
        for m in matches
    }


def test_sh_every_unique_fact():
    g = world()
    g.add_fact("zz", "P27", "de")  # zz now has two citizenships -> ambiguous SH skipped
    ms = find_matches(GraphIndex.build(g), "SH", ALL)
    assert len(ms) == 8
    assert ("zz", "P27", "fr") not in triples(ms)
    assert all(m.answer == m.target.object and m.bridge is None for m in ms)


def test_hs_chains_object_subject():
    ms = find_matches(GraphIndex.build(world()), "HS", ALL)
    got = {(m.target.subject, m.premises[1].relation, m.bridge, m.answer) for m in ms}
    assert got == {
        ("zz", "P30", "fr", "eu"),
        ("zz", "P36", "fr", "pa"),
        ("am", "P30", "de", "eu"),
        ("am", "P36", "de", "be"),
        ("hm", "P30", "jp", "as"),
        ("hm", "P36", "jp", "to"),
    }
    for m in ms:
        assert m.target == m.premises[0] and m.premises[0].object == m.premises[1].subject


def test_mp_only_allowed_pairs():
    idx = GraphIndex.build(world())
    ms = find_matches(idx, "MP", ALL)
    # (P27, P30) and (P27, P36) are in the rule table; (P30, ...) chains do not exist
    assert {tuple(m.extra["rule_pair"]) for m in ms} == {("P27", "P30"), ("P27", "P36")}
    assert len(ms) == 6
    only_continent = MatchConfig(max_per_target=100, mp_pairs=frozenset({("P27", "P30")}))
    ms2 = find_matches(idx, "MP", only_continent)
    assert {(m.target.subject, m.answer) for m in ms2} == {("zz", "eu"), ("am", "eu"), ("hm", "as")}


def test_mt_distractor_has_different_consequent():
    g = world()
    ms = find_matches(GraphIndex.build(g), "MT", ALL, seed=3)
    assert ms
    for m in ms:
        f1, f2 = m.premises
        d, dv = m.extra["distractor"], m.extra["distractor_value"]
        assert d != f1.object and g.has_fact(d, f2.relation, dv) and dv != f2.object
        assert m.answer in ("yes", "no") and not m.answer_is_entity
        assert (m.answer == "yes") == (m.extra["polarity"] == "negated")
    # Zidane/Merkel are both European: for P30 the only valid distractor is Japan (Asia)
    for m in ms:
        if m.target.subject in ("zz", "am") and m.premises[1].relation == "P30":
            assert m.extra["distractor"] == "jp" and m.extra["distractor_value"] == "as"


def test_ll_uses_subject_alias():
    ms = find_matches(GraphIndex.build(world()), "LL", ALL)
    got = {(m.target.subject, m.target.relation, m.extra["alias"]) for m in ms}
    assert got == {
        ("fr", "P30", "French Republic"),
        ("fr", "P36", "French Republic"),
        ("de", "P30", "Deutschland"),
        ("de", "P36", "Deutschland"),
    }


def test_cc_shared_relation_object():
    ms = find_matches(GraphIndex.build(world()), "CC", ALL)
    got = {(m.target.subject, m.extra["partner"], m.answer) for m in ms}
    assert got == {("fr", "de", "eu"), ("de", "fr", "eu")}
    for m in ms:
        assert m.bridge == m.answer and len(m.premises) == 2


def test_ds_options():
    g = world()
    ms = find_matches(GraphIndex.build(g), "DS", ALL, seed=1)
    # P27 has 3 distinct objects, P36 too; P30 only 2 -> no DS for continents
    assert {m.target.relation for m in ms} == {"P27", "P36"}
    for m in ms:
        opts = m.extra["options"]
        assert len(opts) == 3 and len(set(opts)) == 3 and opts.count(m.answer) == 1
        assert m.extra["eliminated"] in opts and m.extra["eliminated"] != m.answer


def test_caps_and_determinism():
    g = KnowledgeGraph()
    for i in range(500):  # a hub: 500 people of one country
        g.add_fact(f"p{i}", "P27", "c")
    g.add_fact("c", "P30", "k")
    idx = GraphIndex.build(g)
    cfg = MatchConfig(max_per_target=2, max_matches=50)
    a = find_matches(idx, "CC", cfg, seed=7)
    b = find_matches(idx, "CC", cfg, seed=7)
    assert len(a) == 50 and [m.extra for m in a] == [m.extra for m in b]
    per_target = {}
    for m in a:
        per_target[m.target] = per_target.get(m.target, 0) + 1
    assert max(per_target.values()) <= 2


def test_unknown_type_suggests():
    with pytest.raises(KeyError, match="did you mean 'HS'"):
        get_matcher("hs")


def test_index_lookups():
    idx = GraphIndex.build(world())
    assert sorted(idx.subjects("P30", "eu")) == ["de", "fr"]
    assert idx.objects("fr", "P36") == ["pa"]
    assert idx.chains(Fact("zz", "P27", "fr"), random.Random(0), 1)[0].subject == "fr"
