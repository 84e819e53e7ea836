"""The `types` and `full` presets give every question type at least 40 scored questions on the
built-in facts with the default model where the source allows it (issue 25 item 6; MP and LL
cannot since issue 34: see the test).

Scored questions are the multi-hop questions whose target is a forget fact, so how many each type
gets depends on which facts the base model knows. ``data/smollm2_known_facts.json`` holds the real
answers of SmolLM2-135M-Instruct to every single-hop fact (its provenance is in the file); the
questions and the forget selection are the CLI's own (`build_questions`, `select_facts`), exactly
as `leakres run` makes them, without loading the model.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from leakres_cli.config.run_config import preset_config
from leakres_cli.records import fact_key
from leakres_cli.stages.evaluation import select_facts
from leakres_cli.stages.questions import build_questions
from leakres_cli.stages.type_checks import MIN_SCORED_PER_TYPE

KNOWN = json.loads((Path(__file__).parent / "data" / "smollm2_known_facts.json").read_text())


def _scored_per_type(cfg) -> tuple[Counter, Counter, dict]:
    """Scored questions per type, the questions per type whose target the model knows (the most
    any forget selection could score), and kg-qgen's shortfall (types the source ran out of)."""
    known_facts = {tuple(f) for f in KNOWN["known_facts"]}
    data = build_questions(cfg)
    pool = [q for q in data["questions"] if q["type"] == "SH"]
    known = [q for q in pool if fact_key(q["target"]) in known_facts]
    if len(known) < cfg.n_forget + cfg.n_retain:  # the run widens the pool to every fact
        known += [q for q in data["sh_reserve"] if fact_key(q["target"]) in known_facts]
    multi = [q for q in data["questions"] if q["type"] != "SH"]
    forget, _ = select_facts(known, multi, cfg.n_forget, cfg.n_retain, cfg.seed)
    keys = {fact_key(q["target"]) for q in forget}
    scored = Counter(q["type"] for q in multi if fact_key(q["target"]) in keys)
    reachable = Counter(q["type"] for q in multi if fact_key(q["target"]) in known_facts)
    return scored, reachable, data["shortfall"]


def test_the_recorded_answers_cover_the_whole_knowledge_base() -> None:
    assert KNOWN["n_asked"] == 289 and KNOWN["n_known"] == len(KNOWN["known_facts"]) == 172


@pytest.mark.parametrize("preset", ["types", "full"])
def test_every_type_gets_at_least_40_scored_questions(preset: str) -> None:
    cfg = preset_config(preset)
    scored, reachable, shortfall = _scored_per_type(cfg)
    assert cfg.n_forget == 48  # SH: the forget facts themselves
    short = {
        t: scored[t] for t in preset_config("types").types[1:] if scored[t] < MIN_SCORED_PER_TYPE
    }
    # "where the knowledge source allows": a type may fall short only when kg-qgen ran out of its
    # questions (the summary names it). Since issue 34's round-three rules the built-in KB gives
    # MP 91 and LL 123 of 200 (one-hop shortcuts, the 30% gold cap, repeated LL facts rejected);
    # 56 MP and 73 LL reach facts the model knows, spread over more facts than the 48 forget facts
    # under the per-object cap can cover next to the other types: MP 35 and LL 29 are scored.
    for qtype in short:
        assert qtype in shortfall, (preset, qtype, scored[qtype], "built fewer than asked?")
        assert scored[qtype] >= min(25, reachable[qtype]), (preset, qtype, scored[qtype])
    assert set(short) <= {"MP", "LL"}, f"{preset}: fewer than {MIN_SCORED_PER_TYPE} scored: {short}"


def test_the_old_size_left_types_short() -> None:
    # 40 built per type (the presets before issue 25) scored DS 8 and MP 15 of them: too few to
    # tell a forgotten type from noise.
    scored, _, _ = _scored_per_type(preset_config("types", per_type=40))
    assert scored["DS"] < 20 and scored["MP"] < 20
