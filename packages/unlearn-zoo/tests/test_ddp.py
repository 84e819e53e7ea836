"""Multi-process DDP on the CPU (gloo) with ``torchrun --nproc_per_node 2``.

``accelerate launch --cpu --num_processes 2`` would start a single process on a machine without
MPI, so torchrun is what really exercises world size 2 here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_graddiff_under_torchrun_world_size_2(tokenizer_dir: Path, tmp_path: Path) -> None:
    worker = Path(__file__).with_name("ddp_worker.py")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    cmd = [
        sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
        "--master_port", "0", "--rdzv_backend", "c10d", "--rdzv_endpoint", "localhost:0",
        str(worker), str(tokenizer_dir), str(tmp_path),
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["rank"] for r in ranks] == [0, 1]
    assert all(r["world_size"] == 2 and r["record"]["world_size"] == 2 for r in ranks)
    assert all(
        r["record"]["steps"] == 2 and r["record"]["stop_reason"] == "completed" for r in ranks
    )
    # 3 epochs of one example per rank asked for 3 steps; max_steps=2 cut them short, and each
    # rank saw one of the two forget records: the count is all-reduced across ranks.
    assert all(r["record"]["planned_steps"] == 3 and r["record"]["cap_hit"] for r in ranks)
    assert all(r["record"]["forget_examples_seen"] == 2 for r in ranks)
    assert abs(ranks[0]["checksum"] - ranks[1]["checksum"]) < 1e-6, "replicas diverged"
    # only the main process writes the checkpoint
    assert (tmp_path / "model" / "unlearn_record.json").exists()
