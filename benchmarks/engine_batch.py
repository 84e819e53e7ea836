"""The engine's batch size, side by side in one process: which default decodes fastest here.

The first 64 distinct MQuAKE dev single-hop questions (as ``engine_speed.py``), chat template,
SmolLM2-135M-Instruct in float32, greedy, 24 new tokens, EOS stops, ``torch.set_num_threads``
as given (default 1). Methods:

- ``naive``: ``model.generate`` one prompt at a time (the yardstick, run once, first).
- ``fixed32``: ``model.generate`` on batches of 32 in input order (OpenUnlearning's style).
- ``engineN``: :class:`recover_attacks.engine.LocalEngine` capped at N rows (what
  ``leakres run --batch-size N`` gives every stage), N in ``--batches``.
- ``engine_auto``: the engine sizing its batch from free memory (``batch_size=None``).

Every method but ``naive`` runs ``--rounds`` times, interleaved (round r runs them in a rotated
order), so a change of load on a shared machine hits all alike; the median per method is
printed. Speeds are per CPU second of this process (``time.process_time``; on a shared machine
the wall clock mostly measures the others) and per wall second; ratios are over ``naive``.
``--busy K`` starts K competing busy processes (a Python spin loop each) for the whole run, to
see what sharing the cores does; ``--threads`` sets torch's threads for every method alike.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python benchmarks/engine_batch.py [--threads 1] [--busy 0]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable

import torch
from _common import cpu_name, load
from engine_speed import (
    MAX_NEW_TOKENS,
    hf_generate_batches,
    mquake_single_hops,
    naive_answers,
    resolve_model,
)
from recover_attacks import format_prompt
from recover_attacks.engine import DecodingConfig, LocalEngine


def spin() -> None:  # a competing process: one busy core
    while True:
        pass


def timed(fn: Callable[[], list[str]]) -> tuple[list[str], float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    texts = fn()
    return texts, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--questions", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--busy", type=int, default=0)
    parser.add_argument("--batches", default="16,32,64,128")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive yardstick")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    tokenizer, model = load(resolve_model(args.model))
    questions = mquake_single_hops(args.questions)
    prompts = [format_prompt(tokenizer, q) for q in questions]
    config = DecodingConfig(max_new_tokens=MAX_NEW_TOKENS)

    def engine(rows: int | None) -> Callable[[], list[str]]:
        eng = LocalEngine(model, tokenizer, max_batch_size=rows)
        return lambda: [r[0].strip() for r in eng.complete(prompts, config)]

    methods: dict[str, Callable[[], list[str]]] = {
        "fixed32": lambda: hf_generate_batches(model, tokenizer, prompts, 32)[0],
        **{f"engine{n}": engine(int(n)) for n in args.batches.split(",")},
        "engine_auto": engine(None),
    }
    busy = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in busy:
        p.start()
    try:
        print(
            f"CPU {cpu_name()} ({os.cpu_count()} cores), torch {torch.__version__}, float32, "
            f"{args.threads} torch thread(s), {len(prompts)} questions, {MAX_NEW_TOKENS} tokens, "
            f"{args.busy} competing busy process(es), load {os.getloadavg()[0]:.1f}"
        )
        reference = None
        if not args.no_naive:
            reference, naive_cpu, naive_wall = timed(
                lambda: naive_answers(model, tokenizer, prompts)[1]
            )
        cpu: dict[str, list[float]] = {m: [] for m in methods}
        wall: dict[str, list[float]] = {m: [] for m in methods}
        same: dict[str, int] = {}
        names = list(methods)
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                texts, c, w = timed(methods[name])
                cpu[name].append(c)
                wall[name].append(w)
                reference = reference or texts
                same[name] = sum(a == b for a, b in zip(texts, reference, strict=True))
        rows = [("naive", naive_cpu, naive_wall)] if not args.no_naive else []
        rows += [(m, statistics.median(cpu[m]), statistics.median(wall[m])) for m in methods]
        base_cpu, base_wall = rows[0][1], rows[0][2]
        print(
            f"{'method':12} {'q/CPU s':>8} {'CPU s':>7} {'wall s':>7} {'x CPU':>6} {'x wall':>6} same"
        )
        for name, c, w in rows:
            print(
                f"{name:12} {len(prompts) / c:8.2f} {c:7.1f} {w:7.1f} {base_cpu / c:6.2f} "
                f"{base_wall / w:6.2f} {same.get(name, len(prompts))}/{len(prompts)}"
            )
        print(f"(x: speed over {rows[0][0]}; 'same': answers equal to {rows[0][0]}'s)")
    finally:
        for p in busy:
            p.terminate()


if __name__ == "__main__":
    main()
