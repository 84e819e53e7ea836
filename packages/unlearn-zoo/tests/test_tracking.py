"""Experiment tracking (unlearn_zoo.tracking): ``report_to`` reaches the trainer's TrainingArguments,
a tensorboard run writes event files that hold the loss curve the record holds, and a tracker whose
package is missing is a one-line error naming what to install. Offline: no tracker server is used."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest
from unlearn_zoo import Tracking, UnlearnError, get_unlearner

FORGET = [{"question": "What is the capital of Freedonia?", "answer": "Fredville"}] * 2


def read_scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the TFRecord event files under ``log_dir``: tag -> [(step, value)] (the
    record format: u64 length, u32 crc, payload, u32 crc; the payload an ``Event`` protobuf)."""
    from tensorboardX.proto import event_pb2

    out: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(log_dir.rglob("events.out.tfevents.*")):
        data = path.read_bytes()
        pos = 0
        while pos + 12 <= len(data):
            (length,) = struct.unpack("<Q", data[pos : pos + 8])
            payload = data[pos + 12 : pos + 12 + length]
            pos += 12 + length + 4
            event = event_pb2.Event.FromString(payload)
            for value in event.summary.value:
                out.setdefault(value.tag, []).append((event.step, value.simple_value))
    return out


def test_tensorboard_event_files_hold_the_loss_curve(tiny_model, tokenizer, tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX", reason="tensorboardX is in unlearn-zoo's test extra")
    model = tiny_model
    logs = tmp_path / "tb"
    unlearner = get_unlearner("ga", lr=1e-4, epochs=3, batch_size=1, seed=0)
    result = unlearner.unlearn(
        model, tokenizer, FORGET, progress=False,
        tracking=Tracking("tensorboard", str(logs), run_name="ga"),
    )  # fmt: skip
    scalars = read_scalars(logs)
    curve = result.record["loss_curve"]
    assert len(curve) == result.record["steps"] == 6
    logged = sorted(scalars["train/loss"])
    assert [step for step, _ in logged] == list(range(1, 7))
    losses = [c["loss"] if isinstance(c, dict) else c for c in curve]
    assert [v for _, v in logged] == pytest.approx(losses, rel=1e-5)


def test_report_to_reaches_training_arguments_and_missing_trackers_fail_clearly() -> None:
    unlearner = get_unlearner("ga")
    assert unlearner.training_arguments("x", False)["report_to"] == "none"
    unlearner.tracking = Tracking("tensorboard", "logs", run_name="ga")
    assert unlearner.training_arguments("x", False)["report_to"] == "tensorboard"
    with pytest.raises(UnlearnError, match="report_to must be one of none, tensorboard"):
        Tracking("comet", "logs")
    for tracker in ("wandb", "mlflow"):
        if importlib.util.find_spec(tracker) is None:
            with pytest.raises(UnlearnError, match=f"needs the {tracker} package: pip install"):
                Tracking(tracker, "logs")
