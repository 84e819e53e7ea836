"""Issue 23: a question type added from a plugin is built, verified and scored end to end.

kg-qgen's example type ``RC`` (:mod:`kg_qgen.example_type`) is installed as an entry point of
group ``leakres.question_types`` (discovery patched, as the registries' plugin tests do); the
CLI accepts it in ``--types``, and its scoring (leak-metrics' FQ per type, S_suc, RR by hop with
the multi-hop set the CLI reads from kg-qgen's registry) runs on made-up verdicts.
"""

from __future__ import annotations

import csv
import re
from importlib.metadata import EntryPoint

import kg_qgen
import kg_qgen.plugins as plugins
import pytest
from kg_qgen.qtypes import ENTRY_POINT_GROUP
from leakres_cli.config.run_config import known_types, multi_hop_types, preset_config
from leakres_cli.errors import LeakresError
from leakres_cli.stages.scoring import MethodCells, score_method

RC_ENTRY = EntryPoint(
    name="rc", value="kg_qgen.example_type:RELATION_CHAIN", group=ENTRY_POINT_GROUP
)
BOOT = {"seed": 0, "n_resamples": 200}


@pytest.fixture
def rc_plugin(monkeypatch):
    monkeypatch.setattr(
        plugins, "entry_points", lambda group: [RC_ENTRY] if group == ENTRY_POINT_GROUP else []
    )


def test_cli_config_knows_plugin_types_only_when_installed(rc_plugin, monkeypatch):
    assert known_types()[-1] == "RC" and "RC" in multi_hop_types(["RC"])
    assert preset_config("smoke", types=("RC",)).types == ("SH", "RC")
    with pytest.raises(LeakresError, match=r"unknown question type\(s\) \['RX'\]; known: SH, HS"):
        preset_config("smoke", types=("RX",))
    monkeypatch.setattr(plugins, "entry_points", lambda group: [])
    with pytest.raises(LeakresError, match=r"unknown question type\(s\) \['RC'\]"):
        preset_config("smoke", types=("RC",))


def test_plugin_type_is_built_verified_and_scored(rc_plugin):
    result = kg_qgen.build(kg_qgen.load_source("builtin"), types=("SH", "RC"), per_type=12, seed=1)
    assert result.verification is not None and result.verification["ok"]
    scored = {t: [q for q in result.questions if q["type"] == t] for t in ("SH", "RC")}
    assert len(scored["RC"]) == 12 and len(scored["SH"]) > 0
    by_id = {q["id"]: q for qs in scored.values() for q in qs}
    # made-up verdicts: the base model knows every question; the unlearned model still answers
    # the first 4 RC questions and no SH question; the attack recovers 2 of the 8 forgotten RC.
    rc_ids = [q["id"] for q in scored["RC"]]
    base = {"correct": dict.fromkeys(by_id, True)}
    unlearned = {"correct": {i: i in rc_ids[:4] for i in by_id}}
    recovered = {i: i in rc_ids[4:6] for i in by_id}
    attack = {"settings": {}, "recovered": recovered, "responses": {i: ["x"] for i in by_id}}
    cells = MethodCells("toy", None, unlearned, {"echo": attack})
    out = score_method(cells, by_id, base, scored, [], None, BOOT)

    rc = out["per_type"]["RC"]
    assert rc["n"] == 12 and rc["chance"] == 0.0 and rc["base_at_chance"] is None
    assert rc["acc_unlearned"]["value"] == pytest.approx(4 / 12)
    assert rc["fq"]["value"] == pytest.approx(1 - (4 / 12) / 1.0)
    assert out["s_suc"] == {"SH": len(scored["SH"]), "RC": 8}
    echo = out["attacks"]["echo"]
    assert echo["rr_per_type"]["RC"]["value"] == pytest.approx(2 / 8)
    assert echo["rr_MH"]["value"] == pytest.approx(2 / 8)  # RC counted multi-hop, from the registry
    assert echo["rr_SH"]["value"] == 0.0


@pytest.fixture
def rc_registered(monkeypatch):
    """RC registered in-process through kg-qgen's registry API (``register_question_type``), as a
    plugin's own code would; the registry is restored afterwards."""
    from kg_qgen.example_type import RELATION_CHAIN
    from kg_qgen.qtypes import QUESTION_TYPE_REGISTRY

    monkeypatch.setattr(QUESTION_TYPE_REGISTRY, "_builtin", dict(QUESTION_TYPE_REGISTRY._builtin))
    kg_qgen.register_question_type(RELATION_CHAIN)
    return RELATION_CHAIN


def test_a_registered_type_runs_through_a_tiny_run_with_no_cli_change(rc_registered, tmp_path):
    """Issue 37 item 5: the CLI reads kg-qgen's registry, so a type registered there is built,
    asked, scored and shown in results.json, summary.md and the tables of a real (tiny) run on
    SmolLM2-135M-Instruct; the ``types`` preset's "every type" includes it."""
    from leakres_cli import run_benchmark

    assert preset_config("types").types[-1] == "RC"  # "all types" = the registry's, read now
    fields = {
        "types": ("SH", "RC"), "per_type": 6, "sh_pool": 30, "n_forget": 3, "n_retain": 3,
        "methods": ("ga",), "attacks": ("probab",), "max_new_tokens": 20, "seed": 0,
        "method_overrides": {"ga": {"lr": 1e-4, "epochs": 5}},
        "attack_overrides": {"probab": {"num_samples": 2}},  # the attack runs; 2 samples suffice
    }  # fmt: skip
    done = run_benchmark(preset_config("smoke", **fields), tmp_path / "run", report=False)
    assert done.results["config"]["types"] == ["SH", "RC"]
    assert "RC" in done.results["scored_questions"]
    rc = done.results["methods"]["ga"]["per_type"]["RC"]
    assert rc["n"] == done.results["scored_questions"]["RC"] > 0
    assert re.search(r"^\| ga +\| RC +\| " + str(rc["n"]) + " ", done.summary, re.M)
    table2 = {p.name: p for p in done.tables}["table2_forget_quality.csv"]
    assert "RC" in next(csv.reader(table2.read_text(encoding="utf-8").splitlines()))
