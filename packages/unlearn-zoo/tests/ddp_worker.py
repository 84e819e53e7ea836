"""Run by test_ddp.py under ``torchrun --nproc_per_node 2``: GradDiff on a tiny model, each rank
writing what it saw (world size from torch.distributed, the run record) to OUT/rank<r>.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from transformers import AutoTokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import FORGET, RETAIN, make_tiny_model
from unlearn_zoo import get_unlearner


def main() -> None:
    tokenizer_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    torch.set_num_threads(1)
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    model = make_tiny_model(len(tok))
    res = get_unlearner("graddiff", max_steps=2, batch_size=1, lr=1e-2, max_length=48).unlearn(
        model, tok, FORGET, RETAIN, output_dir=out / "model", progress=False
    )
    rank = dist.get_rank() if dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_initialized() else 1
    # DDP keeps replicas identical: a checksum of the weights must agree across ranks.
    checksum = float(sum(p.double().sum() for p in res.model.parameters()))
    (out / f"rank{rank}.json").write_text(
        json.dumps({"rank": rank, "world_size": world, "record": res.record, "checksum": checksum})
    )


if __name__ == "__main__":
    main()
