"""Generation speed, side by side in one run: naive loop, fixed batches, main's generate, the engine.

The same 64 MQuAKE dev single-hop questions (the first 64 distinct ``single_hops[].question`` of
``$LEAKRES_DATA_DIR/mquake/MQuAKE-hard-dev.json`` in file order), shown with the chat template
(ARCHITECTURE.md section 3), SmolLM2-135M-Instruct in float32, greedy, 24 new tokens, EOS stops:

- ``naive``: ``model.generate`` on one prompt at a time.
- ``fixed32``: ``model.generate`` on batches of 32 in input order, left-padded (OpenUnlearning's style).
- ``main16`` / ``main64``: main's ``recover_attacks.generate`` before the engine (length-sorted
  batches; its code is copied below as :func:`main_generate` so the baseline stays fixed).
- ``hf_cb``: transformers' own continuous batching (``model.generate_batch``, paged attention).
- ``static``: the engine's fixed-shape slot path (the CUDA default, compiled there), here on CPU
  without compile: finished rows keep their slot until it is refilled, so it computes more.
- ``engine16``: the engine capped at 16 rows (what ``batch_size=16``, the CLI's and the attack
  configs' current default, gives).
- ``engine``: :class:`recover_attacks.engine.LocalEngine` (what ``recover_attacks.generate``
  runs) with its automatic batch size, dynamic continuous batching.

Printed per method: questions/s, generated tokens/s, speed-up over naive and fixed32, how many
answers equal the naive loop's (and for any that differ, the top-2 logit gap of the naive model
at the first differing token, i.e. whether it is a numerical tie), and the share of the machine's
matmul ceiling (a 2048^3 fp32 matmul timed in the same process, same threads, right before each
method). Speeds and shares are per CPU second of this process (``time.process_time``): on a machine
shared with other jobs the wall clock mostly measures the others (the wall-clock ratios are
printed too). With one torch thread, CPU time is the time the core was working for us:

- ``useful``: 2 * parameters * (prompt tokens + generated tokens - 1) per question, i.e. the work
  the naive loop must do, divided by the method's CPU time: the throughput a user gets.
- ``ran``: the same formula over the tokens the method actually ran through the model (padding,
  finished rows kept in a batch, the shared prefix once for the engine).

    HF_HUB_OFFLINE=1 nice -n 0 .venv/bin/python benchmarks/engine_speed.py [--threads 1]

``--threads`` sets ``torch.set_num_threads`` for every method alike (default: 1, the fastest
setting on a 2-core machine shared with other jobs; see the README of recover-attacks).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from recover_attacks import format_prompt, generate
from recover_attacks.engine import LocalEngine
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

MAX_NEW_TOKENS = 24
N_QUESTIONS = 64


def mquake_single_hops(n: int) -> list[str]:
    root = Path(
        os.environ.get("LEAKRES_DATA_DIR")
        or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
    )
    path = root / "mquake" / "MQuAKE-hard-dev.json"
    if not path.is_file():
        raise SystemExit(f"{path} not found: set LEAKRES_DATA_DIR to the shared data folder")
    out: list[str] = []
    for case in json.loads(path.read_text(encoding="utf-8")):
        for hop in case["single_hops"]:
            if hop["question"] not in out:
                out.append(hop["question"])
            if len(out) == n:
                return out
    raise SystemExit(f"{path} has only {len(out)} distinct single-hop questions")


# --- main's generate before the engine (commit 68f4bff), copied so the baseline stays fixed ----


@contextmanager
def left_padding(tokenizer: Any) -> Iterator[Any]:
    old_side, old_pad = tokenizer.padding_side, tokenizer.pad_token
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    try:
        yield tokenizer
    finally:
        tokenizer.padding_side = old_side
        if old_pad is None:
            tokenizer.pad_token = None


def _eos_ids(model: Any, tokenizer: Any) -> int | list[int] | None:
    gen = getattr(model, "generation_config", None)
    eos = getattr(gen, "eos_token_id", None) if gen is not None else None
    return eos if eos is not None else tokenizer.eos_token_id


@torch.no_grad()
def main_generate(model, tokenizer, questions, *, max_new_tokens=32, batch_size=16, seed=0):
    prompts = [format_prompt(tokenizer, q) for q in questions]
    add_special = not bool(getattr(tokenizer, "chat_template", None))
    lengths = [len(tokenizer(p, add_special_tokens=add_special)["input_ids"]) for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: (lengths[i], i))
    gen_kwargs: dict[str, Any] = {
        "max_new_tokens": max_new_tokens,
        "num_return_sequences": 1,
        "eos_token_id": _eos_ids(model, tokenizer),
        "do_sample": False,
    }
    device = next(model.parameters()).device
    results: list[list[str]] = [[] for _ in prompts]
    batches = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]
    ran = 0
    with left_padding(tokenizer):
        gen_kwargs["pad_token_id"] = tokenizer.pad_token_id
        config = GenerationConfig(**gen_kwargs)
        for b, idx in enumerate(batches):
            enc = tokenizer(
                [prompts[i] for i in idx],
                return_tensors="pt",
                padding=True,
                add_special_tokens=add_special,
            ).to(device)
            torch.manual_seed(seed + b)
            out = model.generate(**enc, generation_config=config)
            new = out[:, enc["input_ids"].shape[1] :]
            ran += enc["input_ids"].numel() + new.shape[0] * max(0, new.shape[1] - 1)
            texts = tokenizer.batch_decode(new, skip_special_tokens=True)
            for j, i in enumerate(idx):
                results[i] = [texts[j].strip()]
    return results, ran


# --- the other baselines ----------------------------------------------------------------------


@torch.no_grad()
def hf_generate_batches(model, tokenizer, prompts: Sequence[str], batch_size: int):
    """``model.generate`` on consecutive batches (input order), left padding; returns (texts, ran)."""
    tok = copy.deepcopy(tokenizer)  # padding settings on a copy: the caller's tokenizer stays as is
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    config = GenerationConfig(
        max_new_tokens=MAX_NEW_TOKENS,
        do_sample=False,
        eos_token_id=_eos_ids(model, tokenizer),
        pad_token_id=tok.pad_token_id,
    )
    texts: list[str] = []
    ran = 0
    for s in range(0, len(prompts), batch_size):
        enc = tok(
            list(prompts[s : s + batch_size]),
            return_tensors="pt",
            padding=True,
            add_special_tokens=False,
        )
        out = model.generate(**enc, generation_config=config)
        new = out[:, enc["input_ids"].shape[1] :]
        ran += enc["input_ids"].numel() + new.shape[0] * max(0, new.shape[1] - 1)
        texts += [t.strip() for t in tok.batch_decode(new, skip_special_tokens=True)]
    return texts, ran


@torch.no_grad()
def hf_continuous_batching(model, tokenizer, prompts: Sequence[str]):
    ids = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
    config = GenerationConfig(
        max_new_tokens=MAX_NEW_TOKENS,
        do_sample=False,
        eos_token_id=_eos_ids(model, tokenizer),
        pad_token_id=tokenizer.eos_token_id,
    )
    from transformers import ContinuousBatchingConfig

    # Bounded paged cache: left to itself it sizes the cache from free memory (90%), which on a
    # CPU box shared with other jobs is a multi-GB allocation (it was OOM-killed here once).
    pages = ContinuousBatchingConfig(num_blocks=2 * len(ids), max_batch_tokens=4096)
    out = model.generate_batch(
        ids, generation_config=config, continuous_batching_config=pages, warmup=False
    )
    by_index = {int(key.rsplit("_", 1)[-1]): value for key, value in out.items()}
    texts = [
        tokenizer.decode(by_index[i].generated_tokens, skip_special_tokens=True).strip()
        for i in range(len(ids))
    ]
    ran = sum(len(i) for i in ids) + sum(
        max(0, len(by_index[i].generated_tokens) - 1) for i in range(len(ids))
    )
    return texts, ran


# --- measurement ------------------------------------------------------------------------------


def matmul_ceiling(seconds: float = 2.0, n: int = 2048) -> tuple[float, float]:
    """FLOP per wall second and per CPU second of a large fp32 matmul (same threads)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    runs, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        a @ b
        runs += 1
    flops = 2 * n**3 * runs
    return flops / (time.perf_counter() - wall), flops / (time.process_time() - cpu)


@torch.no_grad()
def naive_answers(
    model, tokenizer, prompts: Sequence[str]
) -> tuple[list[list[int]], list[str], int]:
    eos = _eos_ids(model, tokenizer)
    config = GenerationConfig(
        max_new_tokens=MAX_NEW_TOKENS,
        do_sample=False,
        eos_token_id=eos,
        pad_token_id=tokenizer.eos_token_id,
    )
    tokens, texts, ran = [], [], 0
    for p in prompts:
        ids = tokenizer(p, add_special_tokens=False, return_tensors="pt")["input_ids"]
        out = model.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), generation_config=config
        )
        new = out[0, ids.shape[1] :].tolist()
        tokens.append(new)
        texts.append(tokenizer.decode(new, skip_special_tokens=True).strip())
        ran += ids.shape[1] + max(0, len(new) - 1)
    return tokens, texts, ran


@torch.no_grad()
def tie_gap(
    model, tokenizer, prompt: str, reference: list[int], other_text: str
) -> tuple[int, float]:
    """First token where ``other_text`` leaves the naive answer, and the naive model's top-2 logit
    gap there (a gap near float32 noise means the two answers are a numerical tie)."""
    other = tokenizer(other_text, add_special_tokens=False)["input_ids"]
    step = next(
        (i for i, (a, b) in enumerate(zip(reference, other, strict=False)) if a != b),
        min(len(reference), len(other)),
    )
    ids = tokenizer(prompt, add_special_tokens=False)["input_ids"] + reference[:step]
    logits = model(input_ids=torch.tensor([ids])).logits[0, -1]
    top = torch.topk(logits.float(), 2).values
    return step, float(top[0] - top[1])


def resolve_model(name: str | None) -> str:
    if name:
        return name
    from leakres_cli.models.catalog import resolve_model as resolve

    return resolve("smollm2-135m-instruct")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default=None, help="model directory (default: the embedded SmolLM2)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="torch.set_num_threads for every method"
    )
    parser.add_argument("--skip", default="", help="comma-separated methods to skip (e.g. hf_cb)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = resolve_model(args.model)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(
        path, dtype=torch.float32, use_safetensors=True
    ).eval()
    params = sum(p.numel() for p in model.parameters())
    questions = mquake_single_hops(N_QUESTIONS)
    prompts = [format_prompt(tokenizer, q) for q in questions]
    skip = set(filter(None, args.skip.split(",")))

    print(
        f"model {path} ({params / 1e6:.1f}M params, float32), {len(questions)} questions, "
        f"{MAX_NEW_TOKENS} new tokens greedy, torch threads {torch.get_num_threads()}, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    generate(model, tokenizer, questions[:4], max_new_tokens=4)  # warm-up (allocator, kernels)
    # Per method: wall and CPU seconds, texts, tokens run, and the matmul ceiling measured right
    # before it (FLOP per CPU second): on a machine shared with other jobs the wall clock mostly
    # measures the other jobs; CPU time measures this process's use of the core it got.
    timings: dict[str, tuple[float, float, list[str], int, float]] = {}

    def timed(name: str, method: Callable[[], tuple[list[str], int]]) -> None:
        _, ceiling_cpu = matmul_ceiling()
        load = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        texts, ran = method()
        timings[name] = (
            time.perf_counter() - wall,
            time.process_time() - cpu,
            texts,
            ran,
            ceiling_cpu,
        )
        print(
            f"  {name}: load average {load:.1f}, matmul ceiling {ceiling_cpu / 1e9:.1f} GFLOP per "
            f"CPU-s, {timings[name][0]:.1f} s wall, {timings[name][1]:.1f} CPU-s",
            flush=True,
        )

    naive_tokens: list[list[int]] = []

    def run_naive() -> tuple[list[str], int]:
        tokens, texts, ran = naive_answers(model, tokenizer, prompts)
        naive_tokens.extend(tokens)
        return texts, ran

    timed("naive", run_naive)
    ref_tokens, reference, useful = naive_tokens, timings["naive"][2], timings["naive"][3]

    engine_stats: dict[str, Any] = {}

    def run_engine(**options: Any) -> tuple[list[str], int]:
        engine_stats.clear()
        engine = LocalEngine(model, tokenizer, **options)
        from recover_attacks.engine import DecodingConfig

        out = engine.complete(prompts, DecodingConfig(max_new_tokens=MAX_NEW_TOKENS))
        engine_stats.update(
            engine.last_stats.extra,
            prefix_tokens=engine.last_stats.prefix_tokens,
            forward_passes=engine.last_stats.forward_passes,
        )
        return [r[0].strip() for r in out], engine.last_stats.processed_tokens

    methods: dict[str, Callable[[], tuple[list[str], int]]] = {
        "fixed32": lambda: hf_generate_batches(model, tokenizer, prompts, 32),
        "main16": lambda: (lambda r: ([x[0] for x in r[0]], r[1]))(
            main_generate(
                model,
                copy.deepcopy(tokenizer),
                questions,
                max_new_tokens=MAX_NEW_TOKENS,
                batch_size=16,
            )
        ),
        "main64": lambda: (lambda r: ([x[0] for x in r[0]], r[1]))(
            main_generate(
                model,
                copy.deepcopy(tokenizer),
                questions,
                max_new_tokens=MAX_NEW_TOKENS,
                batch_size=64,
            )
        ),
        "hf_cb": lambda: hf_continuous_batching(model, tokenizer, prompts),
        "static": lambda: run_engine(static_cache=True, compile=False),
        "engine16": lambda: run_engine(max_batch_size=16),
        "engine": run_engine,
    }
    for name, method in methods.items():
        if name not in skip:
            timed(name, method)

    generated = sum(len(t) for t in ref_tokens)
    n = len(questions)
    naive_wall, naive_cpu = timings["naive"][:2]
    fixed_wall, fixed_cpu = timings["fixed32"][:2] if "fixed32" in timings else (float("nan"),) * 2
    header = (
        f"{'method':<8} {'q/s':>6} {'q/CPU-s':>7} {'tok/CPU-s':>9} {'x naive':>7} {'x fixed32':>9} "
        f"{'wall x naive':>12} {'wall x fixed32':>14} {'same':>6} {'useful %':>8} {'ran %':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, (wall, cpu, texts, ran, ceiling_cpu) in timings.items():
        same = sum(a == b for a, b in zip(texts, reference, strict=True))
        useful_pct = 100 * 2 * params * useful / cpu / ceiling_cpu
        ran_pct = 100 * 2 * params * ran / cpu / ceiling_cpu
        print(
            f"{name:<8} {n / wall:6.2f} {n / cpu:7.2f} {generated / cpu:9.1f} {naive_cpu / cpu:7.2f} "
            f"{fixed_cpu / cpu:9.2f} {naive_wall / wall:12.2f} {fixed_wall / wall:14.2f} "
            f"{same:>3}/{n:<2} {useful_pct:8.1f} {ran_pct:6.1f}"
        )
        for i, (a, b) in enumerate(zip(texts, reference, strict=True)):
            if a != b:
                step, gap = tie_gap(model, tokenizer, prompts[i], ref_tokens[i], a)
                print(
                    f"    differs on #{i} at token {step}: naive top-2 logit gap {gap:.2e} | {a!r} vs {b!r}"
                )
    print(f"engine: {engine_stats}")
    print(f"useful tokens (naive work): {useful}; generated tokens: {generated}")


if __name__ == "__main__":
    main()
