"""Stored verdicts follow the judge: a cell judged under another judge identity (an older rules
version, another judge model, or a cell written before identities were recorded) is re-judged on
resume, answers kept, nothing regenerated or retrained. Uses the scripted pipeline of
test_scoring_chance (real built-in facts, real alias judge, stand-in models)."""

from __future__ import annotations

import json
from pathlib import Path

from leak_metrics import get_judge
from leak_metrics.judges.alias import RULES_VERSION
from leakres_cli.scale.store import payload_digest
from test_scoring_chance import _run, _script


def _cell(out: Path, name: str) -> dict:
    return json.loads((out / "cells" / f"{name}.json").read_text())


def test_cells_judged_by_another_judge_are_rejudged_on_resume(tmp_path, monkeypatch) -> None:
    state = {"trained": 0, "retain_kept": set()}
    _script(monkeypatch, state)
    out = tmp_path / "run"
    first = _run(out)
    identity = get_judge("alias").identity()
    assert identity["rules_version"] == RULES_VERSION
    eval_cell = _cell(out, "ga/eval")
    assert eval_cell["payload"]["judge"] == identity

    # Make the stored cell look judged by an older judge that got one verdict wrong, and drop
    # the identity from the attack cell (a cell written before identities were recorded).
    qid = next(i for i, ok in eval_cell["payload"]["correct"].items() if ok is False)
    eval_cell["payload"]["correct"][qid] = True
    eval_cell["payload"]["judge"] = {**identity, "rules_version": 1}
    # as that older judge's run wrote them: with the digest of their payload (an edited cell
    # whose digest does not match is refused, test_trust_inputs.py)
    eval_cell["payload_digest"] = payload_digest(eval_cell["payload"])
    (out / "cells" / "ga" / "eval.json").write_text(json.dumps(eval_cell))
    attack = _cell(out, "ga/attack-probab")
    del attack["payload"]["judge"]
    attack["payload_digest"] = payload_digest(attack["payload"])
    (out / "cells" / "ga" / "attack-probab.json").write_text(json.dumps(attack))

    again = _run(out)
    assert state["trained"] == 1, "nothing retrained"
    rejudged = _cell(out, "ga/eval")["payload"]
    assert rejudged["judge"] == identity and rejudged["correct"][qid] is False
    assert rejudged["rejudged_for_judge_change"] == len(rejudged["correct"])
    assert _cell(out, "ga/attack-probab")["payload"]["judge"] == identity
    assert again["methods"]["ga"]["per_type"] == first["methods"]["ga"]["per_type"]


def test_judge_identity_leaves_out_running_counters() -> None:
    alias = get_judge("alias")
    assert alias.identity() == {
        "name": "alias",
        "rules_version": RULES_VERSION,
        "yes_no_rule": True,
    }
