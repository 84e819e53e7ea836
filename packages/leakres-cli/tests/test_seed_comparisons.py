"""``--seeds`` and the paired comparisons between methods (issue 38 item 2), on made-up cells (no
model): the comparisons' differences are the differences of the scored blocks, Holm runs over
the pairs of one metric, and the seed summary is each seed's value with its mean and std."""

from __future__ import annotations

import pytest
from leakres_cli.config.options import SeedList
from leakres_cli.config.run_config import RunConfig, preset_config
from leakres_cli.stages.comparisons import comparisons_record
from leakres_cli.stages.results import Selection
from leakres_cli.stages.scoring import MethodCells, score_method
from leakres_cli.stages.seeds import SeedScores, run_seeds, seeds_record

N = 12  # questions per type, all known to the base model


def _question(i: int, qtype: str) -> dict:
    target = {"subject": f"s{i}", "relation": "r", "object": f"o{i}"}
    return {"id": f"{qtype}{i}", "type": qtype, "question": "q", "answer": "a", "target": target}


def _setup() -> tuple[Selection, dict]:
    scored = {t: [_question(i, t) for i in range(N)] for t in ("SH", "HS")}
    by_id = {q["id"]: q for qs in scored.values() for q in qs}
    base = {"correct": dict.fromkeys(by_id, True)}
    return Selection(by_id, scored["SH"], [], scored, {}), base


def _cells(method: str, chosen: Selection, forgets: int, recovers: int) -> MethodCells:
    """A method that forgets the first ``forgets`` questions of each type and whose one attack
    recovers the first ``recovers`` of those."""
    correct, recovered = {}, {}
    for qs in chosen.scored.values():
        for i, q in enumerate(qs):
            correct[q["id"]] = i >= forgets
            if i < forgets:
                recovered[q["id"]] = i < recovers
    ev = {"correct": correct, "answers": dict.fromkeys(correct, "x")}
    attack = {"settings": {}, "recovered": recovered, "responses": {}}
    return MethodCells(method, None, ev, {"probab": attack})


def _scores(cells: dict[str, dict[int, MethodCells]], chosen: Selection, base: dict) -> SeedScores:
    seeds = tuple(next(iter(cells.values())))
    out = SeedScores(seeds, explicit=len(seeds) > 1, cells=cells)
    for m, by_seed in cells.items():
        out.scores[m] = {
            s: score_method(c, chosen.by_id, base, chosen.scored, [], None, {"seed": s, "n_resamples": 200})
            for s, c in by_seed.items()
        }  # fmt: skip
    return out


def test_single_seed_comparisons_are_the_differences_of_the_scored_blocks() -> None:
    chosen, base = _setup()
    cells = {
        "ga": {0: _cells("ga", chosen, forgets=12, recovers=2)},
        "npo": {0: _cells("npo", chosen, forgets=4, recovers=3)},
        "rmu": {0: _cells("rmu", chosen, forgets=11, recovers=2)},
    }
    scores = _scores(cells, chosen, base)
    record = comparisons_record(RunConfig(bootstrap=200), (0,), cells, chosen, base)
    ga, npo = scores.methods["ga"], scores.methods["npo"]
    first = record["fq"]["HS"][0]
    assert (first["a"], first["b"]) == ("ga", "npo")
    assert first["difference"] == pytest.approx(
        ga["per_type"]["HS"]["fq"]["value"] - npo["per_type"]["HS"]["fq"]["value"]
    )  # 12/12 forgotten vs 4/12: +66.7 points
    assert first["difference"] == pytest.approx(8 / 12) and first["significant"]
    assert first["sentence"].startswith("ga forgets HS better than npo: +66.7 points [")
    robust = record["robustness"][0]
    # ga: RR 2/12 per hop -> 0.833; npo: RR 3/4 -> 0.25
    assert robust["difference"] == pytest.approx(
        ga["robustness"]["value"] - npo["robustness"]["value"]
    )
    assert robust["difference"] == pytest.approx(10 / 12 - 0.25)
    # three pairs per family; Holm: the smallest p times 3, the next times 2, then monotone
    ps = sorted((e["p_value"], e["p_holm"]) for e in record["fq"]["SH"])
    assert len(ps) == 3 and ps[0][1] == pytest.approx(min(1.0, 3 * ps[0][0]))
    assert ps[1][1] == pytest.approx(max(ps[0][1], min(1.0, 2 * ps[1][0])))
    # ga (12 forgotten) vs rmu (11): a one-question difference is not significant, and says so
    close = next(e for e in record["fq"]["SH"] if (e["a"], e["b"]) == ("ga", "rmu"))
    assert not close["significant"] and "no significant difference" in close["sentence"]


def test_identical_methods_are_never_significant() -> None:
    chosen, base = _setup()
    cells = {m: {0: _cells(m, chosen, forgets=6, recovers=3)} for m in ("ga", "npo")}
    record = comparisons_record(RunConfig(bootstrap=200), (0,), cells, chosen, base)
    for entry in [*record["fq"]["SH"], *record["fq"]["HS"], *record["robustness"]]:
        assert entry["difference"] == 0.0 and entry["p_value"] == 1.0 and entry["p_holm"] == 1.0


def test_several_seeds_compare_the_seed_means_and_summarize_each_seed() -> None:
    chosen, base = _setup()
    cells = {
        "ga": {0: _cells("ga", chosen, 12, 0), 1: _cells("ga", chosen, 10, 2)},
        "npo": {0: _cells("npo", chosen, 3, 0), 1: _cells("npo", chosen, 5, 1)},
    }
    scores = _scores(cells, chosen, base)
    cfg = RunConfig(bootstrap=200, seeds=(0, 1))
    summary = seeds_record(cfg, scores)["methods"]["ga"]
    assert summary["fq"]["SH"]["per_seed"] == {"0": 1.0, "1": pytest.approx(10 / 12)}
    assert summary["fq"]["SH"]["mean"] == pytest.approx(11 / 12)
    assert summary["fq"]["SH"]["std"] == pytest.approx((1 / 12) * 2**0.5)  # ddof 1
    # robustness: seed 0 recovers nothing (1.0), seed 1 recovers 2 of 10 per hop (0.8)
    assert summary["robustness"]["per_seed"] == {"0": 1.0, "1": pytest.approx(0.8)}
    assert summary["rr"]["probab"]["all"]["mean"] == pytest.approx(0.1)
    record = comparisons_record(cfg, (0, 1), cells, chosen, base)
    fq = record["fq"]["SH"][0]
    npo = seeds_record(cfg, scores)["methods"]["npo"]
    assert fq["difference"] == pytest.approx(summary["fq"]["SH"]["mean"] - npo["fq"]["SH"]["mean"])
    robust = record["robustness"][0]
    assert robust["difference"] == pytest.approx(
        summary["robustness"]["mean"] - npo["robustness"]["mean"]
    )
    assert record["seeds"] == [0, 1] and scores.methods["ga"] is scores.scores["ga"][0]


def test_one_method_with_seeds_says_why_no_pair_is_compared() -> None:
    from leakres_cli.outputs.comparisons import no_pair_note, summary_lines
    from leakres_cli.outputs.report.view import _seed_view

    chosen, base = _setup()
    cfg = RunConfig(bootstrap=200, seeds=(0, 1))
    one = {"ga": {0: _cells("ga", chosen, 12, 0), 1: _cells("ga", chosen, 10, 2)}}
    results = {"seeds": seeds_record(cfg, _scores(one, chosen, base))}
    note = no_pair_note(results)
    assert note is not None and "(ga)" in note and "--methods" in note
    lines = summary_lines(results)
    assert (
        "## Seeds" in lines
        and lines[lines.index("## Paired comparisons between methods") + 2] == note
    )
    assert _seed_view(results)["comparisons"] == [note]  # the report's caption line
    # two methods: the comparisons themselves, no note; no --seeds: nothing at all
    two = {**one, "npo": {0: _cells("npo", chosen, 3, 0), 1: _cells("npo", chosen, 5, 1)}}
    both = {
        "seeds": seeds_record(cfg, _scores(two, chosen, base)),
        "comparisons": comparisons_record(cfg, (0, 1), two, chosen, base),
    }
    assert no_pair_note(both) is None and note not in summary_lines(both)
    assert no_pair_note({}) is None and summary_lines({}) == []


def test_seed_option_and_config() -> None:
    assert run_seeds(RunConfig(seed=7)) == (7,)
    cfg = preset_config("smoke", seeds=("2", "0"))  # as --seeds 2,0 arrives
    assert cfg.seeds == (2, 0) and run_seeds(cfg) == (2, 0)
    # which seeds run is not what a seed's cells hold: plain runs keep their fingerprint
    assert "seeds" not in cfg.fingerprint_dict()
    assert cfg.fingerprint_dict() == preset_config("smoke").fingerprint_dict()
    assert SeedList().convert(" 0, 1,2 ", None, None) == "0,1,2"
    import click

    for bad in ("0,0", "a,1", "-1", ""):
        with pytest.raises(click.BadParameter):
            SeedList().convert(bad, None, None)


def test_fresh_drops_every_seed_cell(tmp_path) -> None:
    """--fresh recomputes everything: the other seeds' cells (OUT/seeds/) go with cells/."""
    from leakres_cli.commands.run import _prepare_run_dirs

    for cell in ("cells/ga/eval.json", "seeds/1/cells/ga/eval.json", "summary.md"):
        (tmp_path / cell).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / cell).write_text("{}")
    _prepare_run_dirs(RunConfig(seeds=(0, 1)), tmp_path, fresh=False)
    assert (tmp_path / "seeds/1/cells/ga/eval.json").exists()
    _prepare_run_dirs(RunConfig(seeds=(0, 1)), tmp_path, fresh=True)
    assert not (tmp_path / "cells").exists() and not (tmp_path / "seeds").exists()
    assert (tmp_path / "summary.md").exists()
