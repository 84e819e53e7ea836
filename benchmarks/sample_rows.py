"""Memory of an any-of-N draw: ``batch_size`` as prompts (old) vs as rows (new), side by side.

The first ``--questions`` distinct MQuAKE dev single-hop questions (as ``engine_speed.py``),
chat template, SmolLM2-135M-Instruct in float32, Probab's sampling (temperature 0.8, top-p 0.95,
no top-k) with ``--samples`` N = 20 samples per question, 24 new tokens, EOS stops, seed 0.
Configs (every one decodes the same prompts under the same ``DecodingConfig``):

- ``old``: what ``generate(batch_size=B, num_return_sequences=N)`` did before: a
  :class:`~recover_attacks.engine.LocalEngine` with ``max_batch_size=B * N`` rows (B = 64:
  1,280 rows, the decoding ``leakres run --attack-budgets default`` ran Probab's ladder with).
- ``rowsR``: ``recover_attacks.generate(batch_size=R)`` as it is now: at most R rows at once,
  i.e. ``R // N`` prompts (at least one), R in ``--rows`` (64: the CLI's default).

Each config runs in its own child process (this script with ``--child``), so its peak resident
memory is its own: the child's ``ru_maxrss`` and CPU seconds (user + system) come from
``os.wait4``, the wall clock from the parent; the child also reports its RSS after loading the
model (before decoding) and its decode CPU seconds. The configs run ``--rounds`` times, in a
rotated order per round, so a change of load hits all alike; the medians are printed, then the
ratios over ``old`` and how many questions' sample lists equal ``old``'s (a prompt's sample j is
seeded from (seed, prompt, j), so the row count must not change a response beyond float ties).
A watchdog kills a child whose RSS passes ``--rss-limit-gb``, or once the host's MemAvailable
falls under ``--min-available-gb`` (the machine is shared), and says so.

    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 nice -n 10 python benchmarks/sample_rows.py \
        [--questions 64] [--rounds 2] [--rows 64,128]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BATCH_SIZE = 64  # leakres run's --batch-size
TEMPERATURE, TOP_P = 0.8, 0.95  # ProbabConfig's defaults


def mem_available_bytes() -> int:
    """The host's ``MemAvailable`` (a large number where /proc/meminfo cannot be read)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


def rss_bytes(pid: int) -> int:
    """Current resident memory of ``pid`` (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def child(args: argparse.Namespace) -> None:
    """Decode under one config; write responses and measurements to ``args.out`` (JSON)."""
    import torch
    from _common import load
    from engine_speed import MAX_NEW_TOKENS, mquake_single_hops, resolve_model
    from recover_attacks import format_prompt, generate
    from recover_attacks.engine import DecodingConfig, LocalEngine

    torch.set_num_threads(args.threads)
    tokenizer, model = load(resolve_model(args.model))
    prompts = [format_prompt(tokenizer, q) for q in mquake_single_hops(args.questions)]
    loaded_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    cpu = time.process_time()
    sampling = dict(temperature=TEMPERATURE, top_p=TOP_P, top_k=0, seed=0)
    if args.child == "old":
        engine = LocalEngine(model, tokenizer, max_batch_size=BATCH_SIZE * args.samples)
        config = DecodingConfig(
            max_new_tokens=MAX_NEW_TOKENS, do_sample=True, num_samples=args.samples, **sampling
        )
        responses = [[t.strip() for t in r] for r in engine.complete(prompts, config)]
    else:
        responses = generate(
            model,
            tokenizer,
            prompts,
            chat_template=False,  # already formatted, as the engine above gets them
            do_sample=True,
            num_return_sequences=args.samples,
            max_new_tokens=MAX_NEW_TOKENS,
            batch_size=int(args.child.removeprefix("rows")),
            **sampling,
        )
    decode_cpu = time.process_time() - cpu
    record = {"responses": responses, "loaded_rss": loaded_rss, "decode_cpu": decode_cpu}
    Path(args.out).write_text(json.dumps(record), encoding="utf-8")


def run_child(name: str, args: argparse.Namespace, out: Path) -> dict:
    """One config in a fresh process: its peak RSS and CPU (``os.wait4``), wall, responses."""
    command = [sys.executable, __file__, "--child", name, "--out", str(out)]
    command += ["--questions", str(args.questions), "--samples", str(args.samples)]
    command += ["--threads", str(args.threads)] + (["--model", args.model] if args.model else [])
    wall = time.perf_counter()
    proc = subprocess.Popen(command)
    killed = threading.Event()

    def watch() -> None:
        while proc.returncode is None and not killed.is_set():
            too_big = rss_bytes(proc.pid) > args.rss_limit_gb * 2**30
            if too_big or mem_available_bytes() < args.min_available_gb * 2**30:
                killed.set()
                proc.kill()
                return
            time.sleep(0.2)

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - wall
    if killed.is_set():
        return {"killed": True, "wall": wall, "peak_rss": args.rss_limit_gb * 2**30}
    if proc.returncode != 0:
        raise SystemExit(f"config {name}: child exited with {proc.returncode}")
    record = json.loads(out.read_text(encoding="utf-8"))
    record.update(peak_rss=usage.ru_maxrss * 1024, cpu=usage.ru_utime + usage.ru_stime, wall=wall)
    return record


def report(names: list[str], runs: dict[str, list[dict]], args: argparse.Namespace) -> None:
    """Medians per config, ratios over ``old`` and equal sample lists (old's first round)."""

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[name])

    gb = 2**30
    print(
        f"\n{'config':8} {'rows':>5} {'peak RSS GB':>11} {'loaded GB':>9} {'CPU s':>7} "
        f"{'decode CPU s':>12} {'wall s':>7} {'RSS x old':>9} {'CPU x old':>9} {'wall x old':>10} "
        "same as old"
    )
    killed = {n for n in names if any(r.get("killed") for r in runs[n])}
    reference = None if "old" in killed else runs["old"][0]["responses"]
    for name in names:
        rows = BATCH_SIZE * args.samples if name == "old" else int(name.removeprefix("rows"))
        if name in killed:
            print(f"{name:8} {rows:5} killed (RSS over {args.rss_limit_gb} GB or memory short)")
            continue
        ratios, same = "(no old baseline)", "n/a"
        if reference is not None:
            ratios = " ".join(
                f"{med(name, k) / med('old', k):{w}.3f}"
                for k, w in (("peak_rss", 9), ("cpu", 9), ("wall", 10))
            )
            same = "/".join(
                str(sum(a == b for a, b in zip(r["responses"], reference, strict=True)))
                for r in runs[name]
            )
        print(
            f"{name:8} {rows:5} {med(name, 'peak_rss') / gb:11.2f} "
            f"{med(name, 'loaded_rss') / gb:9.2f} {med(name, 'cpu'):7.1f} "
            f"{med(name, 'decode_cpu'):12.1f} {med(name, 'wall'):7.1f} {ratios} "
            f"{same} of {args.questions} questions' {args.samples} samples"
        )
    print("(medians over the rounds; 'same as old': per round, questions whose sample list equals")
    print(" old's first round; ratios: config / old)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--questions", type=int, default=64)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rows", default="64,128")
    parser.add_argument("--rss-limit-gb", type=float, default=10.0)
    parser.add_argument("--min-available-gb", type=float, default=3.0)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    import torch
    from _common import cpu_name

    names = ["old"] + [f"rows{int(r)}" for r in args.rows.split(",")]
    print(
        f"CPU {cpu_name()} ({os.cpu_count()} cores), torch {torch.__version__}, float32, "
        f"{args.threads} torch thread(s), {args.questions} questions x {args.samples} samples, "
        f"batch_size {BATCH_SIZE}, temperature {TEMPERATURE}, top-p {TOP_P}, "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    runs: dict[str, list[dict]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                record = run_child(name, args, Path(tmp) / f"{name}-{r}.json")
                runs[name].append(record)
                print(
                    f"round {r} {name}: peak RSS {record['peak_rss'] / 2**30:.2f} GB, "
                    f"CPU {record.get('cpu', float('nan')):.1f} s, wall {record['wall']:.1f} s, "
                    f"load {os.getloadavg()[0]:.1f}"
                    + (" (killed)" if record.get("killed") else ""),
                    flush=True,
                )
    report(names, runs, args)


if __name__ == "__main__":
    main()
