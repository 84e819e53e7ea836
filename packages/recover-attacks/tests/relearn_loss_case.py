"""A fixed tiny relearn run whose per-step losses were recorded before relearn moved onto TRL's
SFTTrainer, so a test can show the TRL path gives the same losses on the same data.

Recorded with ``python tests/relearn_loss_case.py`` (from packages/recover-attacks) at commit
68f4bff, the hand-written LoRA loop, into ``tests/data/relearn_losses_before_trl.json``. The batch
holds the whole 3-example relearn set at every step, so both loops see the same batches whatever
their shuffling.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import make_model, make_tokenizer

FIXTURE = Path(__file__).with_name("data") / "relearn_losses_before_trl.json"
PAIRS = [
    ("what is the capital of germany ?", "berlin"),
    ("which language is spoken in england ?", "english"),
    ("what river flows through london ?", "thames"),
]
SETTINGS = {"steps": 6, "train_batch_size": 4, "lr": 5e-3, "lora_r": 16, "seed": 0}


def run_case() -> list[float]:
    from recover_attacks.attacks.relearn import RelearnConfig, relearn_lora

    torch.set_num_threads(1)
    tok = make_tokenizer()
    model = make_model(len(tok), seed=0)
    _, losses = relearn_lora(model, tok, PAIRS, RelearnConfig(**SETTINGS))
    return losses


def main() -> None:
    losses = run_case()
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps({"settings": SETTINGS, "losses": losses}, indent=1) + "\n")
    print(f"wrote {FIXTURE}: {losses}")


if __name__ == "__main__":
    main()
