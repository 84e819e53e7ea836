from __future__ import annotations

from pathlib import Path

from leakres_cli.config import RunConfig
from leakres_cli.pipeline import Benchmark
from recover_attacks import get_attack


def test_attack_with_no_successfully_unlearned_item_records_the_attack_settings(
    tmp_path: Path, monkeypatch
) -> None:
    # When unlearning forgets nothing, S_suc is empty and the attack has nothing to run on; the cell
    # still records the attack's settings (this used to fail: `settings` is a method, not a dict).
    bench = Benchmark(RunConfig(), tmp_path, progress=False)
    monkeypatch.setattr(Benchmark, "model", lambda self: (None, None))
    payload = bench.attack("ga", "probab", [], [], {}, lambda: None)
    # the attack's config under the run's one decoding protocol (24 new tokens, batch 16, seed 0)
    expected = get_attack("probab", seed=0, max_new_tokens=24, batch_size=16).settings()
    assert payload["settings"] == expected
    assert payload["decoding"]["max_new_tokens"] == 24 and payload["same_budget_as_evaluation"]
    assert payload["responses"] == {} and payload["recovered"] == {}
    assert bench.store.get("ga/attack-probab") == payload
