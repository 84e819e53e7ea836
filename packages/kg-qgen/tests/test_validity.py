"""Every question is a valid instance of its logic type, and ``kg-qgen verify`` proves it (issue 9).

Builds on the real MQuAKE-hard dev set (skipped by name when ../shared is absent) and on the
packaged built-in KB, then re-checks them; hand-made graphs pin each rule down.
"""

from __future__ import annotations

import copy
import json

import kg_qgen
import pytest
from click.testing import CliRunner
from kg_qgen import QUESTION_TYPES, build
from kg_qgen.cli import cli
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.match.index import GraphIndex, MatchConfig
from kg_qgen.match.registry import find_matches
from kg_qgen.semantics.aliases import alias_problem
from kg_qgen.semantics.classes import infer_class
from kg_qgen.verify.balance import best_short_rule, one_cue_accuracy, option_rule_accuracy
from kg_qgen.verify.report import verify_records

PERSON_ITS = "its country of citizenship"


@pytest.fixture(scope="module")
def mquake_build(mquake_hard_dev, mquake_per_type):
    graph = kg_qgen.load_source("mquake", mquake_hard_dev)
    return graph, build(graph, per_type=mquake_per_type, seed=0)


@pytest.fixture(scope="module")
def builtin_build():
    graph = kg_qgen.load_source("builtin")
    return graph, build(graph, per_type=100, seed=0)


def _ds_and_mt_are_sound(graph: KnowledgeGraph, questions: list[dict]) -> None:
    index = GraphIndex.of(graph)
    for q in questions:
        ids = [tuple(p.values()) for p in q["premise_ids"]]
        if q["type"] == "DS":
            # one option left: every other option ruled out by a clue fact that fits it alone
            assert [e["fact_ids"] for e in q["eliminated"]] == q["premise_ids"][1:]
            assert sorted(e["option_id"] for e in q["eliminated"]) == sorted(
                o for o in q["option_ids"] if o != q["answer_id"]
            )
            for e in q["eliminated"]:
                s, rel, o = tuple(e["fact_ids"].values())
                if e["side"] == "subject":
                    fits = [x for x in q["option_ids"] if graph.has_fact(x, rel, o)]
                else:
                    fits = [x for x in q["option_ids"] if x in index.objects(s, rel)]
                    assert len(index.objects(s, rel)) == 1
                assert fits == [e["option_id"]]
            assert q["options"] == [graph.label(o) for o in q["option_ids"]]
        elif q["type"] == "MT":
            # two options, the gold and the distractor of the third premise, whose second-hop
            # value differs from the gold's: one conditional's consequent is false in reality
            assert len(ids) == 3 and ids[2][0] == q["distractor_id"] and ids[2][2] != ids[1][2]
            assert sorted(q["option_ids"]) == sorted([q["answer_id"], q["distractor_id"]])
            assert q["options"] == [graph.label(o) for o in q["option_ids"]]
            assert " were " not in f" {q['question']} " and " would " not in f" {q['question']} "
        else:
            assert q["options"] == []


def test_mquake_dev_all_types_verified(mquake_build, mquake_per_type):
    # build time: benchmarks/kgqgen_build_time.py (not a wall-clock bound in a unit test)
    graph, result = mquake_build
    # MP and LL may fall short by issue 34's rules (position -> sport MP items are one-hop recall;
    # no gold over 30%; no repeated LL fact): 27 MP and 80 LL on the full file, said in the
    # shortfall. MT (two options, issue 34) fills its 100.
    short_ok = ("MP", "LL")
    expected = {
        t: result.counts[t]["kept"] if t in short_ok else mquake_per_type for t in QUESTION_TYPES
    }
    assert {t: result.counts[t]["kept"] for t in QUESTION_TYPES} == expected, result.shortfall
    for t in short_ok:
        assert expected[t] == mquake_per_type or t in result.shortfall
        assert expected[t] >= mquake_per_type // 4
    report = result.verification
    assert report["ok"], [f for t in report["per_type"].values() for f in t["failures"]][:5]
    assert {t: s["passed"] for t, s in report["per_type"].items()} == expected
    _ds_and_mt_are_sound(graph, result.questions)
    # DS rejections are counted by reason (the before/after figures)
    assert sum(result.counts["DS"]["match_rejected_by"].values()) > 0


def test_mquake_dev_variety_and_mp_spread(mquake_build, mquake_per_type):
    from collections import Counter

    from kg_qgen.stats import self_bleu

    graph, result = mquake_build
    by_type: dict[str, list[dict]] = {}
    for q in result.questions:
        by_type.setdefault(q["type"], []).append(q)
    figures = {t: self_bleu([q["question"] for q in qs]) for t, qs in by_type.items()}
    # issue 21 item 7's goal; measured on seed 0 (README, round six: each wording the least
    # shared of 16 draws): SH 0.25 HS 0.41 MP 0.67 LL 0.30 CC 0.29 DS 0.64 MT 0.71, all 0.481
    if mquake_per_type == 100:  # the figures are for the full dev build (the slice has 12 a type)
        assert max(figures.values()) <= 0.75, figures
        assert self_bleu([q["question"] for q in result.questions]) <= 0.55, figures
    # MP: round-robin over rule pairs, so the common pair only fills what the others cannot
    kept = Counter(tuple(q["rule_pair"]) for q in by_type["MP"])
    found = Counter(
        tuple(m.extra["rule_pair"])
        for m in find_matches(GraphIndex.of(graph), "MP", MatchConfig(max_matches=300))
    )
    if result.counts["MP"]["gold_cap"]["dropped"]:  # issue 34: the gold cap dropped some
        assert set(kept) == set(found), (kept, found)  # every rule pair still asked
    elif result.counts["MP"]["rejected"] == 0:  # every match verified: round-robin is visible
        level = max(kept.values())
        # a pair holds fewer than the top level only when the source had no more of it
        assert all(kept[p] == n or kept[p] >= level - 1 for p, n in found.items()), (kept, found)
        assert sum(kept.values()) == min(mquake_per_type, sum(found.values()))


def test_mt_answers_cannot_be_read_off_the_wording(mquake_build, builtin_build, mquake_per_type):
    """Issue 34: verify's text-only classifier (trained on half, tested on the other half)
    stays within chance + 0.10 on both sources; the gold's slot is a coin; nothing "follows"."""
    for _graph, result in (mquake_build, builtin_build):
        mt = [q for q in result.questions if q["type"] == "MT"]
        assert len(mt) == min(100, mquake_per_type) or result is builtin_build[1]
        check = result.verification["set_checks"]["mt_text"]
        assert check["ok"] and check["says_follows"] == [] and check["repeated_facts"] == 0
        if len(mt) >= 100:  # judged sizes (smaller sets are reported, not judged)
            assert check["judged"] and check["classifier"]["accuracy"] <= 0.60, check["detail"]
            assert check["top_gold_share"] <= 0.30 and check["top_frame_share"] <= 0.20
            assert check["facts_per_100"] >= 40
        for q in mt:  # each option in its conditional and in the ask
            assert all(q["question"].count(o) >= 2 for o in q["options"]), q["question"]
            assert q["question"].endswith("?")


def test_two_word_rule_finds_round_one_cue():
    # round one: yes iff "europe" present, flipped when "false" is present
    questions, answers = [], []
    for i in range(80):
        europe, false = i % 2 == 0, (i // 2) % 2 == 0
        words = (["false"] if false else []) + ["q", str(i), "europe" if europe else "asia"]
        questions.append(" ".join(words))
        answers.append("yes" if europe != false else "no")
    assert one_cue_accuracy(questions, answers).accuracy < 0.6
    rule = best_short_rule(questions, answers)
    assert rule.accuracy == 1.0 and rule.cue in (
        "europe ^ false",
        "false ^ europe",
        "asia ^ false",
        "false ^ asia",
    )


def test_ds_option_rule_finds_a_gold_marker():
    sets = [["Alpha gold", "Beta", "Gamma"], ["Delta", "Eps gold", "Zeta"]] * 40
    golds = [0, 1] * 40
    assert option_rule_accuracy(sets, golds).accuracy == 1.0
    # options drawn at random from one pool, gold at random: nothing marks the gold
    rng = __import__("random").Random(0)
    pool = [f"name{k} word{k % 4}" for k in range(12)]
    plain = [rng.sample(pool, 3) for _ in range(90)]
    assert option_rule_accuracy(plain, [rng.randrange(3) for _ in range(90)]).accuracy < 0.65


def test_one_cue_classifier_finds_the_old_cues():
    # main's MT wording: "is not" <=> yes, and "were" only for false antecedents
    questions = [f"If X{i} were A, ... can we conclude that X{i} is not A?" for i in range(60)]
    questions += [f"If Y{i} were B, ... is Y{i} B?" for i in range(60)]
    answers = ["yes"] * 60 + ["no"] * 60
    cue = one_cue_accuracy(questions, answers)
    assert cue.accuracy == 1.0 and cue.rule == "present -> yes"
    assert one_cue_accuracy(["a b", "a b"], ["yes", "no"]).accuracy == 0.5


def test_builtin_kb_verified_every_type(builtin_build):
    graph, result = builtin_build
    assert result.verification["ok"]
    # MP may fall short by issue 34's gold cap (no answer over 30%), said so in the shortfall
    expected = {t: result.counts[t]["kept"] if t == "MP" else 100 for t in QUESTION_TYPES}
    assert {t: result.counts[t]["kept"] for t in QUESTION_TYPES} == expected, result.shortfall
    assert expected["MP"] == 100 or "no answer is over 30%" in result.shortfall["MP"]
    _ds_and_mt_are_sound(graph, result.questions)
    for q in result.questions:
        assert PERSON_ITS not in q["question"] or graph.label(q["target_ids"]["subject"])
        first = q["question"][0]
        assert first.isupper() or not first.isalpha()


def _people_graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    for eid, label, aliases in [
        ("nadella", "Satya Nadella", ["Satya Narayana Nadella", "SN"]),
        ("obama", "Barack Obama", ["Barack", "Obama", "Barack Hussein Obama II"]),
        ("us", "United States of America", ["USA", "America"]),
        ("in", "India", []),
    ]:
        g.add_entity(eid, label, aliases)
    for s, r, o in [
        ("nadella", "P27", "us"),
        ("nadella", "P19", "hyderabad"),
        ("hyderabad", "P17", "in"),
        ("in", "P30", "asia"),
        ("us", "P30", "na"),
        ("obama", "P27", "us"),
        ("obama", "P19", "honolulu"),
        ("honolulu", "P17", "us"),
    ]:
        g.add_fact(s, r, o)
    return g


def test_persons_get_their_things_get_its():
    g = _people_graph()
    idx = GraphIndex.build(g)
    assert idx.entity_class("nadella") == "person" and idx.entity_class("us") == "country"
    result = build(g, types=("LL", "HS"), per_type=50, seed=0, oversample=20)
    texts = [q["question"] for q in result.questions]
    assert texts and not any("Nadella: what is its" in t for t in texts)
    assert not any(" its place of birth" in t or " its country of citizenship" in t for t in texts)
    assert result.verification["ok"]


def test_alias_rules():
    owners = {"e"}
    label = "Ole Gunnar Solskjær"
    for alias, why in [
        ("fr", "3 characters"),
        ("GK", "3 characters"),
        ("ENG", "3 characters"),
        ("U.K.", "3 characters"),
        ("The UK", "3 characters"),
        ("Big G", "single letters"),
        ("Ole", "3 characters"),
        ("Gunnar", "fragment"),
        ("Solskjaer", None),
        ("Gunnar Solskjær", "fragment"),
        ("Ole Gunnar Solskjær Jr", "contains the label"),
    ]:
        got = alias_problem(alias, label, owners, "e")
        assert (got is None) if why is None else (why in got), (alias, got)
    assert "other entit" in alias_problem("Blue Oval", "Ford Motor Company", {"e", "h"}, "e")
    assert "fragment" in alias_problem("Ford", "Ford Motor Company", {"e"}, "e")
    assert "answer" in alias_problem("Kingdom of Spain", "Spain Kingdom", {"e"}, "e", ["Spain"])


def test_ll_uses_only_identifying_aliases():
    g = _people_graph()
    ms = find_matches(GraphIndex.build(g), "LL", MatchConfig(max_per_target=10))
    used = {m.extra["alias"] for m in ms}
    # "SN"/"USA" are codes, "Barack", "Obama" and "America" fragments of their labels
    assert used == {"Satya Narayana Nadella", "Barack Hussein Obama II"}


def test_classes_from_p31_then_roles():
    assert infer_class(["P27"], []) == "person"
    assert infer_class([], ["P19", "P36"]) == "city"
    assert infer_class(["P17"], []) == "thing"  # anything can be located in a country
    assert infer_class(["P36"], ["P27"]) == "country"
    assert infer_class(["P27"], ["P17"]) == "thing"  # conflicting evidence: unknown
    assert infer_class(["P27"], [], ["Q515"], ["city"]) == "city"  # P31 wins over roles
    assert infer_class([], [], ["Q999"], ["human being"]) == "person"


def test_ds_elimination_needs_positive_evidence():
    # "the one whose currency is the euro" would fit two options: only a clue that fits one
    # option alone rules it out (a currency is neither single-valued nor identifying here)
    g = KnowledgeGraph()
    for i, (c, cur) in enumerate([("fr", "euro"), ("de", "euro"), ("it", "lira"), ("es", "euro")]):
        g.add_fact(f"p{i}", "P27", c)
        g.add_fact(c, "P38", cur)
        g.add_fact(c, "P30", "eu")
    ms = find_matches(GraphIndex.build(g), "DS", MatchConfig(max_per_target=5))
    assert ms and all(c.fact.relation != "P38" for m in ms for c in m.extra["clues"])


def _tamper(questions: list[dict]) -> dict[str, str]:
    """Break one record per rule; returns id -> the check that must catch it."""
    by_type = {t: [q for q in questions if q["type"] == t] for t in QUESTION_TYPES}
    expect = {}
    mt = by_type["MT"][0]
    mt["answer_id"] = mt["distractor_id"]
    expect[mt["id"]] = "logic"
    ds = by_type["DS"][0]
    ds["option_ids"] = [ds["option_ids"][1], ds["option_ids"][0], *ds["option_ids"][2:]]
    expect[ds["id"]] = "logic"
    hs = by_type["HS"][0]
    hs["question"] = "what is the P27 of " + hs["target"]["subject"] + "?"
    expect[hs["id"]] = "relation_label"
    sh = by_type["SH"][1]
    sh["question"] = sh["question"][0].lower() + sh["question"][1:]
    expect[sh["id"]] = "style"
    cc = by_type["CC"][0]
    cc["question"] = f"{cc['question']} Hint: {cc['answer']}."
    expect[cc["id"]] = "leak"
    mp = by_type["MP"][0]
    mp["rule"] = "Every work is registered in the capital of its country of origin."
    expect[mp["id"]] = "logic"
    return expect


def test_verify_command_passes_then_names_every_broken_record(
    tmp_path, mquake_hard_dev, mquake_per_type
):
    out = tmp_path / "mq"
    runner = CliRunner()
    args = ["build", "--source", "mquake", "--input", str(mquake_hard_dev), "--out", str(out),
            "--per-type", str(mquake_per_type)]  # fmt: skip
    built = runner.invoke(cli, args, catch_exceptions=False)
    assert built.exit_code == 0, built.output
    assert "verification passed" in built.output
    assert json.loads((out / "verify_report.json").read_text())["ok"]
    verify = ["verify", str(out), "--source", "mquake", "--input", str(mquake_hard_dev)]
    ok = runner.invoke(cli, verify, catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    n_built = len((out / "questions.jsonl").read_text().splitlines())
    assert f"verification passed: {n_built} questions" in ok.output

    questions = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()]
    broken = copy.deepcopy(questions)
    expect = _tamper(broken)
    (out / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in broken))
    report_path = tmp_path / "report.json"
    bad = runner.invoke(cli, [*verify, "--report", str(report_path)], catch_exceptions=False)
    assert bad.exit_code == 1, bad.output
    report = json.loads(report_path.read_text())
    assert not report["ok"]
    failures = {f["id"]: f for t in report["per_type"].values() for f in t["failures"]}
    for rid, check in expect.items():
        assert rid in failures and any(
            f["check"] == check
            for t in report["per_type"].values()
            for f in t["failures"]
            if f["id"] == rid
        ), (rid, check, failures.get(rid))
    # exactly the tampered ids fail
    assert set(failures) == set(expect)
    assert report["per_type"]["MT"]["failed"] == 1


def test_unlabelled_relation_is_a_named_reject_and_strict_an_error(tmp_path):
    p = tmp_path / "t.jsonl"
    rows = [
        ("Ada", "P27", "Freedonia"),
        ("Bob", "P27", "Sylvania"),
        ("Cy", "P27", "Genovia"),
        ("Freedonia", "P30", "Europe"),
        ("Ada", "P9999", "Sylvania"),
    ]
    p.write_text(
        "".join(
            json.dumps(dict(zip(("subject", "relation", "object"), r, strict=True))) + "\n"
            for r in rows
        )
    )
    runner = CliRunner()
    out = tmp_path / "out"
    res = runner.invoke(
        cli,
        [
            "build",
            "--source",
            "triples",
            "--input",
            str(p),
            "--out",
            str(out),
            "--types",
            "SH",
            "--per-type",
            "10",
        ],
    )
    assert res.exit_code == 0, res.output
    rejects = [json.loads(x) for x in (out / "rejects.jsonl").read_text().splitlines()]
    named = [r for r in rejects if r["check"] == "relation_label"]
    assert len(named) == 1 and "'P9999'" in named[0]["reason"]
    assert "P9999" not in (out / "questions.jsonl").read_text()
    strict = runner.invoke(
        cli,
        [
            "build",
            "--source",
            "triples",
            "--input",
            str(p),
            "--out",
            str(tmp_path / "s"),
            "--strict",
        ],
    )
    assert strict.exit_code != 0 and "'P9999' has no label" in str(strict.exception)
    assert not (tmp_path / "s").exists()


def test_report_counts_per_type(builtin_build):
    graph, result = builtin_build
    ds = [q for q in result.questions if q["type"] == "DS"][:4]
    mt = [q for q in result.questions if q["type"] == "MT"][:6]
    report = verify_records(ds + mt, graph)
    assert report.ok, report.set_checks
    assert (report.per_type["DS"]["n"], report.per_type["MT"]["n"]) == (4, 6)
    # small sets are reported with their figures, not judged
    assert not report.set_checks["ds_options"]["judged"]
    assert "not judged: n < 60" in report.set_checks["ds_options"]["detail"]
    assert not report.set_checks["mt_text"]["judged"]
    assert "not judged: n < 100" in report.set_checks["mt_text"]["detail"]
