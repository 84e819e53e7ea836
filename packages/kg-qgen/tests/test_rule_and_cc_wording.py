"""MP rule sentences and CC frames read as a person would say them (issue 21, "wording").

MP: a rule states a general truth, not the same words twice ("Citizenship of a country always
means citizenship of a country lying on the continent of that country"). CC: every frame says
the two subjects share the value, and none reads the relation backwards ("the country that
belongs to the Sydney Opera House as well as to Sydney").
"""

from kg_qgen.generate.template import FRAMES, TemplateGenerator
from kg_qgen.graph import Fact, KnowledgeGraph
from kg_qgen.match.base import Match
from kg_qgen.match.mp import REWORDINGS, RULES


def _repeated_4gram(sentence: str) -> tuple[str, ...] | None:
    words = sentence.lower().rstrip(".").replace(",", "").split()
    grams = [tuple(words[i : i + 4]) for i in range(len(words) - 3)]
    return next((g for g in grams if grams.count(g) > 1), None)


def test_rule_wordings_say_no_phrase_twice():
    for pair, rule in RULES.items():
        # at least three wordings, two of them hand-written or generic sentences besides the
        # table's, so a rule reads in more than one structure
        assert len(rule.wordings) >= 3 and len(REWORDINGS[rule.rule]) >= 2, pair
        for wording in rule.wordings:
            assert _repeated_4gram(wording) is None, wording
            assert "rule of the world" not in wording and "always means" not in wording, wording
    # the tautology the issue quotes would be caught
    old = "A citizen of a country is a citizen of a country on its continent."
    assert _repeated_4gram(old) == ("a", "citizen", "of", "a")


def test_citizenship_rule_asks_for_a_continent_not_a_country():
    rule = RULES[("P27", "P30")]
    assert all("continent" in c for c in rule.conclusions)
    assert not any("whose citizen" in c for c in rule.conclusions)


def _cc_questions() -> list[tuple[int, str]]:
    g = KnowledgeGraph()
    g.add_relation("P17", "country")
    for eid, label in [("op", "Sydney Opera House"), ("syd", "Sydney"), ("au", "Australia")]:
        g.add_entity(eid, label)
    f1, f2 = Fact("op", "P17", "au"), Fact("syd", "P17", "au")
    for f in (f1, f2):
        g.add_fact(f.subject, f.relation, f.object)
    match = Match("CC", [f1, f2], target=f1, bridge=None, answer="au", extra={"partner": "syd"})
    out = []
    for seed in range(120):
        record = TemplateGenerator(seed=seed).generate([match], g)[0]
        out.append((int(record["template"].split("/")[1]), record["question"]))
    return out


def test_cc_frames_say_the_value_is_shared_and_read_forwards():
    questions = _cc_questions()
    assert {frame for frame, _ in questions} == set(range(FRAMES["CC"]))
    for _, q in questions:
        assert "belongs to" not in q and "both have" not in q and ", like " not in q, q
        words = ("share", "same", "common", "both", "is also", "identical", "matches")
        assert any(w in q for w in words), q
        assert "Sydney Opera House" in q and "Sydney" in q and "Australia" not in q
