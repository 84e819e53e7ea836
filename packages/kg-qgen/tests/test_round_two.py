"""Issue 21's rules, each on a small graph or string built here: LL aliases that identify, DS
options of the gold's sport, one right answer, articles and doubled words, name leaks on
every type (the MT wordings' rules: ``test_mt_wording.py``)."""

from collections import Counter

import pytest
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.semantics.aliases import alias_problem
from kg_qgen.semantics.articles import doubled_word, with_article
from kg_qgen.verify.deterministic import StyleCheck
from kg_qgen.verify.leak import find_leak
from kg_qgen.wording import phrase_for

ONLY_ME = {"e"}


@pytest.mark.parametrize(
    ("alias", "label", "cls", "sports", "why"),
    [
        ("MSFT", "Microsoft", "organization", (), "ticker or code"),
        ("NASA", "National Aeronautics and Space Administration", "organization", (), "code"),
        ("Billy", "Christopher Robin Milne", "person", (), "given name or surname alone"),
        ("goalie", "goalkeeper", "position", ["association football"], "ice hockey"),
        ("defenseman", "defender", "position", ["association football"], "ice hockey"),
        ("pivot", "center", "position", ["basketball"], "several sports"),
        # MQuAKE's alias of "association football manager", found reading the round-six build
        ("coach", "association football manager", "position", ["association football"], "several"),
        ("The Beattles", "The Beatles", "group", (), "misspelling"),
    ],
)
def test_aliases_that_do_not_identify_are_refused(alias, label, cls, sports, why):
    got = alias_problem(alias, label, ONLY_ME, "e", entity_class=cls, sports=sports)
    assert got is not None and why in got


@pytest.mark.parametrize(
    ("alias", "label", "cls", "sports"),
    [
        ("Bundesrepublik Deutschland", "Germany", "country", ()),
        ("Billy Moon", "Christopher Robin Milne", "person", ()),
        ("keeper", "goalkeeper", "position", ["association football"]),
        ("Baby Faced Assassin", "Ole Gunnar Solskjær", "person", ()),
    ],
)
def test_aliases_that_identify_are_kept(alias, label, cls, sports):
    assert alias_problem(alias, label, ONLY_ME, "e", entity_class=cls, sports=sports) is None


def _positions() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_relation("P413", "position played on team / speciality")
    g.add_relation("P641", "sport")
    for pos, sport in [
        ("gk", "football"),
        ("mf", "football"),
        ("df", "football"),
        ("fb", "baseball"),
        ("pg", "basketball"),
    ]:
        g.add_entity(pos, pos)
        g.add_fact(pos, "P641", sport)
    for i, pos in enumerate(["gk", "mf", "df", "fb", "pg", "gk", "mf"]):
        g.add_fact(f"player{i}", "P413", pos)
    return g


def test_ds_options_are_positions_of_the_gold_sport():
    # round two left goalkeeper / first baseman, decided by the player's sport; round three
    # offers only positions of the gold's sport (test_ds_one_left.py has the full rules)
    g = _positions()
    idx = GraphIndex.build(g)
    ms = find_matches(idx, "DS", MatchConfig(max_per_target=5), seed=0)
    positions = [m for m in ms if m.target.relation == "P413"]
    assert positions
    for m in positions:
        assert {idx.objects(o, "P641")[0] for o in m.extra["options"]} == {"football"}


def test_multi_valued_relations_are_never_asked():
    g = KnowledgeGraph()
    g.add_relation("P37", "official language")
    g.add_relation("P463", "member of")
    g.add_fact("ireland", "P37", "irish")
    g.add_fact("pff", "P463", "fifa")
    g.add_fact("italy_team", "P463", "fifa")
    idx = GraphIndex.build(g)
    assert not idx.is_unique("ireland", "P37")  # the graph lists one, the world has two
    for qtype in ("SH", "CC", "LL", "DS"):
        assert find_matches(idx, qtype, MatchConfig(), seed=0) == []


def test_articles_and_trailing_prepositions():
    assert with_article("United Kingdom", "country") == "the United Kingdom"
    assert with_article("Republic of Ireland", "country") == "the Republic of Ireland"
    assert with_article("Golden State Warriors", "team") == "the Golden State Warriors"
    assert with_article("France", "country") == "France"
    assert with_article("Manchester United F.C.", "team") == "Manchester United F.C."
    assert with_article("The Beatles", "group") == "The Beatles"
    p = phrase_for("P1376", "capital of")
    assert p.direct("Berlin") == "What is Berlin the capital of?"
    assert "of of" not in p.np("Berlin")
    assert doubled_word("What is the capital of of Berlin?") == "of"
    assert doubled_word("Is Tokyo is ruled out?", ("Tokyo",)) is None  # "is <name> is"


def test_style_check_rejects_doubled_words_and_relation_word_answers():
    g = KnowledgeGraph()
    g.add_relation("P36", "capital")
    g.add_relation("P138", "named after")
    record = {
        "type": "SH",
        "question": "What is the capital of of Berlin?",
        "answer": "Paris",
        "premises": [],
        "premise_ids": [],
    }
    assert "twice" in StyleCheck().problem(record, g)
    record = {**record, "question": "What is the namesake of Capital Hill?", "answer": "capital"}
    assert "bare relation word" in StyleCheck().problem(record, g)


def test_name_leaks_are_checked_on_every_type_ds_included():
    g = KnowledgeGraph()
    g.add_relation("P17", "country")
    g.add_relation("P36", "capital")
    for eid, label in [
        ("college", "Cairo American College"),
        ("eg", "Egypt"),
        ("cairo", "Cairo"),
        ("us", "United States of America"),
        ("jp", "Japan"),
    ]:
        g.add_entity(eid, label)
    g.add_fact("college", "P17", "eg")
    g.add_fact("eg", "P36", "cairo")
    record = {
        "type": "DS",
        "question": "The country of Cairo American College is one of Egypt, Japan or the United "
        "States of America. Which is it?",
        "answer": "Egypt",
        "answer_aliases": [],
        "answer_id": "eg",
        "options": ["Egypt", "Japan", "United States of America"],
        "option_ids": ["eg", "jp", "us"],
        "premise_ids": [{"subject": "college", "relation": "P17", "object": "eg"}],
    }
    assert "Cairo" in (find_leak(record, g) or "")
    sh = {**record, "type": "SH", "question": "Which country is Bank of Egypt in?"}
    sh.pop("options")
    assert "egypt" in (find_leak(sh, g) or "").lower()


def test_mp_rule_wordings_read_lower_case_after_a_comma():
    from kg_qgen.generate.template import _lower_first
    from kg_qgen.match.mp import RULES

    for rule in RULES.values():
        assert len(rule.wordings) >= 3 and len(rule.asks) >= 1
        for wording in rule.wordings:
            assert _lower_first(wording)[0].islower(), wording
        # a name the instance starts with keeps its capital ("The Beatles")
        assert _lower_first("The Beatles plays a certain position.", "The Beatles")[0] == "T"


def test_mp_sample_spreads_rule_pairs_round_robin():
    from kg_qgen.selection import spread as _spread

    pool = [{"id": i, "rule_pair": ["P413", "P641"]} for i in range(8)]
    pool[2:2] = [{"id": 10 + i, "rule_pair": ["P27", "P30"]} for i in range(3)]
    pool.append({"id": 20, "rule_pair": ["P19", "P30"]})
    got = [tuple(r["rule_pair"]) for r in _spread(pool, "rule_pair")]
    assert Counter(got[:7]) == {("P413", "P641"): 3, ("P27", "P30"): 3, ("P19", "P30"): 1}
    assert Counter(got) == Counter(tuple(r["rule_pair"]) for r in pool)
