from __future__ import annotations

from pathlib import Path

import pytest
from leakres_cli.config.run_config import RunConfig
from leakres_cli.stages.pipeline import Benchmark
from recover_attacks import get_attack


def test_attack_with_no_successfully_unlearned_item_records_the_attack_settings(
    tmp_path: Path, monkeypatch
) -> None:
    # When unlearning forgets nothing, S_suc is empty and the attack has nothing to run on; the cell
    # still records the attack's settings (this used to fail: `settings` is a method, not a dict).
    bench = Benchmark(RunConfig(), tmp_path, progress=False)
    monkeypatch.setattr(Benchmark, "model", lambda self: (None, None))
    payload = bench.attack("ga", "probab", [], [], {}, lambda: None)
    # the attack's config under the run's one decoding protocol (24 new tokens, batch 64, seed 0)
    expected = get_attack("probab", seed=0, max_new_tokens=24, batch_size=64).settings()
    assert payload["settings"] == expected
    assert payload["decoding"]["max_new_tokens"] == 24 and payload["same_budget_as_evaluation"]
    assert payload["responses"] == {} and payload["recovered"] == {}
    assert bench.store.get("ga/attack-probab") == payload


def test_unlearned_model_trains_on_first_use_only_and_keeps_no_run(tmp_path) -> None:
    from leakres_cli.progress import StageTimer
    from leakres_cli.scale.store import CellStore, fingerprint
    from leakres_cli.stages.unlearning import UnlearnedModel

    class Router:
        def __init__(self) -> None:
            self.registered: list[str] = []

        def register(self, model, name) -> None:
            self.registered.append(name)

        def release(self, model) -> None:
            self.registered.remove("ga")

    class Host:
        """What UnlearnedModel needs of a run: store, timer, router, trainer (a stand-in here)."""

        def __init__(self) -> None:
            self.store = CellStore(tmp_path, fingerprint({}))
            self.timer, self.generation, self.trained = StageTimer(), Router(), 0

        def unlearn(self, method, forget, retain):
            self.trained += 1
            return object(), {"method": method, "n_forget": len(forget)}

    host = Host()
    unlearned = UnlearnedModel(host, "ga", [{"id": "f"}], [])
    assert unlearned.record is None and host.trained == 0  # nothing trained until asked
    assert unlearned() is unlearned()
    assert host.trained == 1 and host.generation.registered == ["ga"]
    assert host.store.get("ga/unlearn") == {"method": "ga", "n_forget": 1}
    assert "ga:unlearn" in host.timer.timings
    assert host not in vars(unlearned).values()  # no back-reference to the run
    unlearned.release()
    assert host.generation.registered == []
    # A resumed run reads the stored record without training.
    assert UnlearnedModel(host, "ga", [], []).record == {"method": "ga", "n_forget": 1}
    assert host.trained == 1


def test_bbh_without_a_data_dir_is_fetched_up_front_and_an_offline_failure_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No --data-dir and no LEAKRES_DATA_DIR: leak-metrics downloads BBH; where that fails (offline)
    the run must stop in bbh_data, before any model work, with a LeakresError naming the fix."""
    import leak_metrics.bbh as bbh
    from leakres_cli.config import run_checks
    from leakres_cli.config.run_config import RunConfig
    from leakres_cli.errors import LeakresError

    def offline(task: str, **_: object) -> None:
        raise bbh.BBHDownloadError(f"https://example.invalid/{task}.json: download failed")

    monkeypatch.delenv("LEAKRES_DATA_DIR", raising=False)
    monkeypatch.setattr(bbh, "load_bbh_task", offline)
    cfg = RunConfig(bbh_tasks=("navigate",), data_dir=None)
    with pytest.raises(LeakresError, match=r"BBH task navigate: .*download failed.*--data-dir"):
        run_checks.bbh_data(cfg)
