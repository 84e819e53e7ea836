"""Fixed tiny runs whose per-step losses were recorded before the TRL rework, so the test can
show that the TRL paths (SFTTrainer for TV, TRL-made references) give the same losses.

Recorded with ``python tests/loss_cases.py`` (from packages/unlearn-zoo) at commit 68f4bff, the
main-branch code before the rework, into ``tests/data/losses_before_trl.json``. Every case sets
``epochs`` and ``max_steps`` to the same budget (3 steps of the whole 2-example forget set), so the
old step-based and the new epoch-based sizing train on the same batches.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import FORGET, RETAIN, build_tokenizer, make_tiny_model

FIXTURE = Path(__file__).with_name("data") / "losses_before_trl.json"
COMMON = {"lr": 1e-2, "batch_size": 2, "max_length": 48, "max_steps": 3, "epochs": 3.0, "seed": 0}
CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "ga": ("ga", {"retain_weight": 0.0}),
    "graddiff": ("graddiff", {"retain_weight": 1.0}),
    "npo": ("npo", {"retain_weight": 0.0}),
    "npo_retain": ("npo", {"retain_weight": 1.0}),
    "npo_lora": (
        "npo",
        {
            "retain_weight": 0.0,
            "use_lora": True,
            "lora_r": 4,
            "lora_target_modules": ["q_proj", "v_proj"],
        },
    ),
    "simnpo": ("simnpo", {"retain_weight": 1.0}),
    "rmu": ("rmu", {"layer": 2, "steering_coeff": 5.0, "alpha": 10.0, "retain_weight": 1.0}),
    "tv": ("tv", {"alpha": 1.0}),
    "palu": ("palu", {"retain_weight": 0.0, "lam": 1.0}),
    "palu_retain": ("palu", {"retain_weight": 1.0, "lam": 1.0}),
    "as": ("as", {"retain_weight": 1.0}),
}


def run_case(name: str, tokenizer: Any) -> list[dict[str, float]]:
    from unlearn_zoo import get_unlearner

    method, over = CASES[name]
    torch.set_num_threads(1)
    model = make_tiny_model(len(tokenizer))
    retain = [] if method == "tv" else RETAIN
    result = get_unlearner(method, **COMMON, **over).unlearn(
        model, tokenizer, FORGET, retain, progress=False
    )
    return result.record["loss_curve"]


def main() -> None:
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        tok = AutoTokenizer.from_pretrained(build_tokenizer(Path(tmp)))
        curves = {name: run_case(name, tok) for name in CASES}
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(curves, indent=1) + "\n")
    print(f"wrote {FIXTURE}: {', '.join(f'{k}={len(v)} steps' for k, v in curves.items())}")


if __name__ == "__main__":
    main()
