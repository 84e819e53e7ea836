"""Every matcher on a hand-built graph whose matches are known exactly."""

import random
from collections import Counter

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


def test_mp_only_true_rules_on_subjects_of_their_class():
    idx = GraphIndex.build(world())
    ms = find_matches(idx, "MP", ALL)
    # (P27, P30) has a true rule for persons; (P27, P36) has none ("home capital" is no law)
    assert {tuple(m.extra["rule_pair"]) for m in ms} == {("P27", "P30")}
    assert {(m.target.subject, m.answer) for m in ms} == {("zz", "eu"), ("am", "eu"), ("hm", "as")}
    with pytest.raises(ValueError, match="no rule"):
        find_matches(idx, "MP", MatchConfig(mp_pairs=frozenset({("P27", "P36")})))
    # (P495, P30) holds for anything; (P17, P30) only for places
    g = world()
    g.add_relation("P495", "country of origin")
    g.add_relation("P17", "country")
    g.add_fact("sushi", "P495", "jp")
    g.add_fact("anthem", "P17", "fr")  # an anthem is no place: the rule must not fire on it
    g.add_fact("lyon", "P17", "fr")
    g.add_fact("ab", "P19", "lyon")  # someone born in Lyon makes Lyon a city
    stats = Counter()
    got = {
        (m.target.subject, tuple(m.extra["rule_pair"]))
        for m in find_matches(GraphIndex.build(g), "MP", ALL, stats=stats)
    }
    assert ("sushi", ("P495", "P30")) in got and ("lyon", ("P17", "P30")) in got
    assert ("anthem", ("P17", "P30")) not in got
    assert stats["subject class 'thing' does not fit the rule's 'place'"] == 1


def test_mt_two_options_one_false_consequent_and_mirrored_names():
    g = world()
    ms = find_matches(GraphIndex.build(g), "MT", ALL, seed=3)
    assert ms
    for m in ms:
        f1, f2, d_fact = m.premises
        d = m.extra["distractor"]
        assert m.answer == f1.object and m.answer_is_entity and m.bridge is None
        assert sorted(m.extra["options"]) == sorted([f1.object, d])
        # the distractor's conditional is a fact with a false consequent: modus tollens rules
        # it out; the gold's conditional has the true one
        assert d_fact.subject == d and g.has_fact(d, f2.relation, d_fact.object)
        assert d_fact.object != f2.object and d not in (f1.subject,)
        assert sorted(map(tuple, m.extra["conditionals"])) == sorted(
            [(f1.object, f2.object), (d, d_fact.object)]
        )
    # two continents for three countries: one Europe chain cannot be mirrored
    assert {(m.premises[0].relation, m.premises[1].relation) for m in ms} == {
        ("P27", "P30"),
        ("P27", "P36"),
    }
    # each name is a gold as often as a distractor, per relation pair
    for pair in {(m.premises[0].relation, m.premises[1].relation) for m in ms}:
        group = [m for m in ms if (m.premises[0].relation, m.premises[1].relation) == pair]
        assert Counter(m.answer for m in group) == Counter(m.extra["distractor"] for m in group)


def test_ll_uses_subject_alias():
    ms = find_matches(GraphIndex.build(world()), "LL", ALL)
    # "French Republic" and "Deutschland" identify their countries
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


def test_ds_needs_options_of_the_gold_class():
    g = world()
    stats: Counter[str] = Counter()
    ms = find_matches(GraphIndex.build(g), "DS", ALL, seed=1, stats=stats)
    # P27's countries are grouped by continent (P30): Europe has two, Asia one, so no gold has
    # two distractors of its own continent (Japan beside France and Germany was round two's
    # two-way recall). The capitals have no grouping fact in this graph: any city goes, each
    # ruled out as "the capital of <its country>"
    assert {m.target.relation for m in ms} == {"P36"}
    assert stats["fewer distractors of the gold's class than ds_options needs"] >= 3
    g.add_entity("it", "Italy")
    g.add_entity("ro", "Rome")
    g.add_entity("uo", "Umberto Eco")
    for s_, r, o in [("it", "P30", "eu"), ("it", "P36", "ro"), ("uo", "P27", "it")]:
        g.add_fact(s_, r, o)
    ms = find_matches(GraphIndex.build(g), "DS", ALL, seed=1)
    ms = [m for m in ms if m.target.relation == "P27"]
    assert len(ms) == 3
    for m in ms:
        opts = m.extra["options"]
        assert sorted(opts) == ["de", "fr", "it"] and opts.count(m.answer) == 1
        assert len(m.extra["clues"]) == 2 and m.premises[0] == m.target


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
