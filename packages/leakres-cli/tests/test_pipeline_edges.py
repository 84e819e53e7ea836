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
    assert payload == {
        "settings": get_attack("probab", seed=0).settings(),
        "responses": {},
        "recovered": {},
    }
    assert bench.store.get("ga/attack-probab") == payload
