"""Fault injection for `leakres run`: kills, judge outages and a full disk must lose nothing.

On a tiny configuration (the smoke preset scaled down further, see TINY_ARGS) it first makes one
uninterrupted reference run, then:

* kill trials (default 20 kills of a running process): start the run, SIGKILL it at a seeded moment
  drawn on its progress (a stage, then an offset into it), check every cell on disk is whole,
  resume with the same command, and check the resumed results.json equals the reference bit for
  bit once the wall-clock and process-measurement fields (VOLATILE, listed explicitly) are
  removed; also every cell equals the reference's, none is missing or extra, and no temp file,
  staging directory or holder in the lock file is left;
* judge faults: an OpenAI-compatible judge on 127.0.0.1 (started here) that passes the run's
  preflight request and then answers HTTP 500, never answers in time, or answers garbage (an outage
  mid-run); the run (--judge alias,llm: the LLM judge reports agreement) must finish, count every
  LLM verdict as unjudged, cache none of them, and keep the alias-judged numbers equal to the
  reference. An endpoint dead from the start ("dead") must instead stop the run at the preflight,
  before any model work, with a one-line error and exit status 2;
* disk full: the cell store's write raises ENOSPC after a seeded number of writes (monkeypatched in
  the child process); the run must stop with a one-line `error: cannot write ...`, keep every
  finished cell whole, and a resumed run must equal the reference.

    .venv/bin/python benchmarks/fault_injection.py --trials 20 --seed 0 --workdir /tmp/fi

The reference and the trials must use one model cache (LEAKRES_CACHE_DIR): results.json records the
resolved model path, so a reference copied from another cache differs there. --workdir reuses its
reference run when present.

Prints one line per trial and a summary line; exit status 1 if any trial failed. The repo-root test
tests/test_fault_injection.py runs two kill trials of this module in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

# The tiny end-to-end configuration: the smoke preset (SH + HS, GA, Probab) on SmolLM2-135M with
# fewer facts, questions, tokens, samples and resamples, and two GA steps at a higher learning rate,
# so one run takes a minute or two on a laptop CPU instead of several.
TINY_ARGS = [
    "run", "--quiet", "--seed", "0", "--n-forget", "3", "--n-retain", "2", "--per-type", "6",
    "--sh-pool", "16", "--max-new-tokens", "8", "--bootstrap", "50",
    "--set", "ga.max_steps=2", "--set", "ga.lr=1e-4",
    "--set", "probab.num_samples=2", "--set", "probab.max_new_tokens=8",
]  # fmt: skip

# Fields of results.json (and of the cells) that are wall-clock times or measurements of the
# process, not results: they legitimately differ between two runs of the same configuration.
# "*" matches every key of a mapping (every method).
VOLATILE: tuple[tuple[str, ...], ...] = (
    ("timings_s",),
    ("profile",),  # per-stage wall/CPU seconds, tokens and steps: a resumed run skips finished work
    ("methods", "*", "unlearn", "wall_time_s"),
    ("methods", "*", "unlearn", "train_time_s"),
    ("methods", "*", "unlearn", "step_times_s"),
    ("methods", "*", "unlearn", "peak_rss_mb"),  # the process's memory high-water mark
    ("methods", "*", "unlearn", "peak_cuda_mb"),
)
# The same fields inside the stored unlearning record (cells/<method>/unlearn.json's payload).
VOLATILE_UNLEARN_CELL = tuple(
    path[3:] for path in VOLATILE if path[:3] == ("methods", "*", "unlearn")
)

TRIAL_TIMEOUT_S = 900


# ----------------------------------------------------------------------------- comparison
def strip_volatile(data: Any, paths: tuple[tuple[str, ...], ...] = VOLATILE) -> Any:
    """A deep copy of ``data`` without the fields at ``paths``."""
    data = json.loads(json.dumps(data))
    for path in paths:
        _drop(data, path)
    return data


def _drop(node: Any, path: tuple[str, ...]) -> None:
    if not isinstance(node, dict) or not path:
        return
    head, rest = path[0], path[1:]
    keys = list(node) if head == "*" else [head]
    for key in keys:
        if key not in node:
            continue
        if rest:
            _drop(node[key], rest)
        else:
            del node[key]


def read_cells(out: Path) -> tuple[dict[str, Any], list[str]]:
    """Every cell of a run directory by name, and the problems found (corrupt or stray files)."""
    cells: dict[str, Any] = {}
    problems: list[str] = []
    root = out / "cells"
    if not root.is_dir():
        return cells, problems
    for path in sorted(root.rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(root).as_posix()
        if not rel.endswith(".json") or path.name.startswith("."):
            problems.append(f"stray file cells/{rel}")
            continue
        try:
            cell = json.loads(path.read_text(encoding="utf-8"))
            assert isinstance(cell, dict) and {"config_fingerprint", "payload"} <= set(cell)
        except (ValueError, AssertionError) as exc:
            problems.append(f"corrupt cell cells/{rel}: {exc!r:.80}")
            continue
        payload = cell["payload"]
        if rel.endswith("/unlearn.json"):
            payload = strip_volatile(payload, VOLATILE_UNLEARN_CELL)
        cells[rel[: -len(".json")]] = {
            "fingerprint": cell["config_fingerprint"],
            "payload": payload,
        }
    return cells, problems


def leftovers(out: Path) -> list[str]:
    """Partial writes and staging directories, and a lock file that still names a holder."""
    found = [p.relative_to(out).as_posix() for p in out.rglob(".*.tmp")]
    found += [p.name for p in out.glob(".outputs-*")]
    lock = out / ".leakres.lock"
    if lock.exists() and lock.read_text().strip():
        found.append(".leakres.lock (still names a holder)")
    return found


def compare_to_reference(out: Path, reference: Path) -> list[str]:
    """Differences between a finished run directory and the reference one (empty = equal)."""
    problems = []
    results_path = out / "results.json"
    if not results_path.exists():
        return ["no results.json"]
    got = strip_volatile(json.loads(results_path.read_text()))
    want = strip_volatile(json.loads((reference / "results.json").read_text()))
    if got != want:
        problems.append(f"results.json differs at {', '.join(diff_paths(got, want)[:5])}")
    cells, cell_problems = read_cells(out)
    ref_cells, _ = read_cells(reference)
    problems += cell_problems
    if set(cells) != set(ref_cells):
        problems.append(f"cells {sorted(set(cells) ^ set(ref_cells))} missing or extra")
    problems += [
        f"cell {n} differs" for n in sorted(set(cells) & set(ref_cells)) if cells[n] != ref_cells[n]
    ]
    problems += [f"left behind: {p}" for p in leftovers(out)]
    return problems


def diff_paths(a: Any, b: Any, prefix: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{prefix}/{key}")
            else:
                out += diff_paths(a[key], b[key], f"{prefix}/{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for p in diff_paths(x, y, f"{prefix}[{i}]")
        ]
    return [] if a == b else [prefix or "/"]


# ----------------------------------------------------------------------------- running leakres
def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def leakres_command(
    out: Path, extra: list[str] | None = None, child: list[str] | None = None
) -> list[str]:
    """This file as the child entry point (so faults can be patched in), then the CLI arguments."""
    return [
        sys.executable,
        __file__,
        "child",
        *(child or []),
        "--",
        *TINY_ARGS,
        *(extra or []),
        "--out",
        str(out),
    ]


def run_leakres(
    out: Path, extra: list[str] | None = None, child: list[str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        leakres_command(out, extra, child), env=child_env(), capture_output=True, text=True,
        timeout=TRIAL_TIMEOUT_S, check=False,
    )  # fmt: skip


def make_reference(workdir: Path) -> tuple[Path, float]:
    """The uninterrupted run every trial is compared with, and its wall time (reused if present)."""
    out = workdir / "reference"
    stamp = out / "wall_s.txt"
    if (out / "results.json").exists() and stamp.exists():
        return out, float(stamp.read_text())
    start = time.perf_counter()
    proc = run_leakres(out)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(
            f"the reference run failed (exit {proc.returncode}): {proc.stderr[-2000:]}"
        )
    stamp.write_text(f"{wall:.3f}")
    return out, wall


@dataclass
class Outcome:
    """One trial: what was injected, what happened, and whether everything held."""

    name: str
    injected: str
    ok: bool
    notes: list[str] = field(default_factory=list)
    killed: bool = False
    resumed_equal: bool = False

    def line(self) -> str:
        verdict = "ok  " if self.ok else "FAIL"
        return f"{verdict} {self.name}: {self.injected}; {'; '.join(self.notes)}"


def stage_gaps(reference: Path, ref_wall_s: float) -> list[float]:
    """Seconds the reference run spent before each cell was written, and after the last one.

    From the cells' modification times: ``gaps[k]`` is the time between the k-th cell (the run's
    start for k = 0) and the next one (results.json for the last gap).
    """
    root = reference / "cells"
    times = sorted(p.stat().st_mtime for p in root.rglob("*.json") if not p.name.startswith("."))
    end = (reference / "results.json").stat().st_mtime
    marks = [end - ref_wall_s, *times, end]
    return [max(0.0, b - a) for a, b in itertools.pairwise(marks)]


def count_cells(out: Path) -> int:
    root = out / "cells"
    if not root.is_dir():
        return 0
    return sum(1 for p in root.rglob("*.json") if not p.name.startswith("."))


def kill_trial(workdir: Path, reference: Path, ref_wall_s: float, index: int, seed: int) -> Outcome:
    """SIGKILL a run at a seeded random moment, check the cells on disk, resume, compare.

    The moment is drawn on the run's own progress, not the wall clock (which moves with the
    machine's load): a seeded stage k (the number of cells already written, 0 up to all of
    them) and a seeded offset into that stage, uniform over the reference run's time for it. So the
    kills spread over every stage, including the output writing after the last cell.
    """
    rng = random.Random(f"{seed}:{index}")
    gaps = stage_gaps(reference, ref_wall_s)
    stage = rng.randrange(len(gaps))
    offset = rng.uniform(0.0, gaps[stage])
    out = workdir / f"kill-{index:02d}"
    _clear(out)
    proc = subprocess.Popen(
        leakres_command(out),
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed = False
    start = time.perf_counter()
    while proc.poll() is None and count_cells(out) < stage:
        time.sleep(0.05)
    try:
        proc.wait(timeout=max(offset, 0.01))
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        killed = True
    delay = time.perf_counter() - start
    _, stderr = proc.communicate()
    outcome = Outcome(
        f"kill {index:02d}",
        f"SIGKILL {offset:.1f}s after cell {stage} of {len(gaps) - 1} ({delay:.1f}s in)",
        ok=True,
        killed=killed,
    )
    if not killed:
        outcome.notes.append(f"finished before the kill (exit {proc.returncode})")
        if proc.returncode != 0:
            outcome.ok = False
            outcome.notes.append(stderr.strip()[-300:])
    cells, problems = read_cells(out)
    outcome.notes.append(f"{len(cells)} whole cells at kill time")
    if problems:
        outcome.ok = False
        outcome.notes += problems
    resumed = run_leakres(out)
    if resumed.returncode != 0:
        outcome.ok = False
        outcome.notes.append(
            f"resume failed (exit {resumed.returncode}): {resumed.stderr.strip()[-300:]}"
        )
        return outcome
    differences = compare_to_reference(out, reference)
    outcome.resumed_equal = not differences
    outcome.ok = outcome.ok and not differences
    outcome.notes += differences or ["resumed results.json and cells equal the reference"]
    return outcome


def disk_full_trial(workdir: Path, reference: Path, seed: int) -> Outcome:
    """ENOSPC from the store after a seeded number of writes; one-line error, whole cells, resume."""
    n_writes = len(read_cells(reference)[0]) + 3  # cells + summary.md, tables, results.json
    after = random.Random(f"{seed}:enospc").randrange(1, n_writes)
    out = workdir / "disk-full"
    _clear(out)
    outcome = Outcome("disk full", f"ENOSPC on store write {after + 1}", ok=True)
    proc = run_leakres(out, child=["--enospc-after", str(after)])
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    if (
        proc.returncode != 2
        or len(lines) != 1
        or "No space left on device" not in lines[0]
        or "Traceback" in proc.stderr
    ):
        outcome.ok = False
        outcome.notes.append(
            f"expected one 'error: cannot write ...' line and exit 2, got exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
        )
    else:
        outcome.notes.append(lines[0][:120])
    cells, problems = read_cells(out)
    outcome.notes.append(f"{len(cells)} whole cells kept")
    problems += [f"left behind: {p}" for p in leftovers(out)]
    if problems:
        outcome.ok = False
        outcome.notes += problems
    resumed = run_leakres(out)
    differences = (
        compare_to_reference(out, reference)
        if resumed.returncode == 0
        else [f"resume failed: {resumed.stderr.strip()[-300:]}"]
    )
    outcome.resumed_equal = not differences
    outcome.ok = outcome.ok and not differences
    outcome.notes += differences or ["resumed run equals the reference"]
    return outcome


def judge_fault_trial(workdir: Path, reference: Path, mode: str) -> Outcome:
    """The LLM judge's endpoint fails in ``mode``; the run finishes with those verdicts unjudged
    (``dead``: the run stops at the preflight instead, see :func:`_check_preflight_stop`)."""
    out = workdir / f"judge-{mode}"
    _clear(out)
    outcome = Outcome(f"judge {mode}", f"LLM-judge endpoint: {FAULTS[mode]}", ok=True)
    with judge_server(mode) as url:
        proc = run_leakres(
            out,
            extra=["--judge", "alias,llm", "--judge-model", "judge-model", "--judge-base-url", url],
            # 1 s client timeout and one retry keep the 'timeout' fault to seconds (the default is 60 s).
            child=["--judge-timeout", "1", "--judge-retries", "1"],
        )
    if mode == "dead":
        return _check_preflight_stop(outcome, proc, out)
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        outcome.ok = False
        outcome.notes.append(f"run failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
        return outcome
    results = json.loads((out / "results.json").read_text())
    llm = results["judges"]["agreement"]["llm"]
    n_items = results["judges"]["n_items"]
    outcome.notes.append(f"{llm['n_unjudged']}/{n_items} LLM verdicts unjudged")
    if llm["n_unjudged"] != n_items or n_items == 0:
        outcome.ok = False
        outcome.notes.append("expected every LLM verdict unjudged")
    cached = list((out / "judge-cache").rglob("*.json")) if (out / "judge-cache").exists() else []
    if cached:
        outcome.ok = False
        outcome.notes.append(f"{len(cached)} failed verdicts were cached")
    want = strip_volatile(json.loads((reference / "results.json").read_text()))["methods"]
    if strip_volatile(results)["methods"] != want:
        outcome.ok = False
        outcome.notes.append("alias-judged method numbers differ from the reference")
    else:
        outcome.notes.append("alias-judged numbers equal the reference")
    return outcome


def _check_preflight_stop(
    outcome: Outcome, proc: subprocess.CompletedProcess[str], out: Path
) -> Outcome:
    """A dead endpoint: exit 2, one ``error: judge 'llm': ...`` line, no model work stored."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    stored = (
        sorted(p.name for p in (out / "cells").rglob("*.json")) if (out / "cells").exists() else []
    )
    model_cells = [name for name in stored if name != "questions.json"]
    if proc.returncode != 2 or "Traceback" in proc.stderr:
        outcome.ok = False
        outcome.notes.append(f"expected exit 2 at the preflight, got {proc.returncode}")
    elif not (lines and lines[-1].startswith("error: judge 'llm': ")):
        outcome.ok = False
        outcome.notes.append(f"no one-line judge error: {proc.stderr.strip()[-200:]}")
    elif model_cells:
        outcome.ok = False
        outcome.notes.append(f"model work stored before the preflight stopped it: {model_cells}")
    else:
        outcome.notes.append(f"stopped at the preflight, no model work stored: {lines[-1][:110]}")
    return outcome


def _clear(out: Path) -> None:
    if out.exists():
        import shutil

        shutil.rmtree(out)


# ----------------------------------------------------------------------------- scripted judge server
FAULTS = {
    "ok": "scripted 'correct' verdicts",
    "500": "HTTP 500 on every request after the preflight",
    "timeout": "no reply within the client's timeout after the preflight",
    "garbage": "HTTP 200 whose reply is not a JSON verdict",
    "dead": "HTTP 500 from the first request on (the preflight)",
}
#: modes whose failure starts after the first request: that one is the run's preflight check
#: (``Benchmark.check_judge_endpoints``), which must pass for the outage to hit the run itself
AFTER_PREFLIGHT = ("500", "timeout", "garbage")


class ScriptedJudge(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions stand-in (as in leakres-cli's test_judge_agreement.py)."""

    mode: ClassVar[str] = "ok"
    requests: ClassVar[list[dict[str, Any]]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            first = not type(self).requests
            type(self).requests.append(
                {"auth": self.headers.get("Authorization"), "path": self.path}
            )
        mode = "ok" if first and self.mode in AFTER_PREFLIGHT else self.mode
        if mode in ("500", "dead"):
            self._send(500, b'{"error": {"message": "injected failure"}}')
            return
        if mode == "timeout":
            time.sleep(3)  # past the 1 s client timeout the child sets
        content = (
            "<<garbage>> %%% not a verdict"
            if mode == "garbage"
            else json.dumps({"verdict": "correct", "reason": "scripted"})
        )
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }  # fmt: skip
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send(200, json.dumps(reply).encode())

    def _send(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def judge_server(mode: str, userinfo: str = "") -> Iterator[str]:
    """Serve ScriptedJudge in ``mode`` on 127.0.0.1; yields its base URL (with ``userinfo@`` if given)."""
    handler = type(
        f"ScriptedJudge_{mode}",
        (ScriptedJudge,),
        {"mode": mode, "requests": [], "lock": threading.Lock()},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        at = f"{userinfo}@" if userinfo else ""
        yield f"http://{at}127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


# ----------------------------------------------------------------------------- child entry point
def child(argv: list[str]) -> None:
    """Run the CLI in this process with the requested faults patched in."""
    parser = argparse.ArgumentParser(prog="fault_injection.py child")
    parser.add_argument("--enospc-after", type=int, default=None)
    parser.add_argument("--judge-timeout", type=float, default=None)
    parser.add_argument("--judge-retries", type=int, default=None)
    opts, cli_args = parser.parse_known_args(argv)
    cli_args = [a for a in cli_args if a != "--"]
    if opts.enospc_after is not None:
        _inject_enospc(opts.enospc_after)
    if opts.judge_timeout is not None:
        _shorten_judge_timeout(opts.judge_timeout, opts.judge_retries)
    from leakres_cli.main import cli

    cli.main(cli_args, prog_name="leakres")


def _inject_enospc(after: int) -> None:
    from leakres_cli.scale import store

    real = store._write_atomic
    count = 0

    def write_atomic(path: Path, write: Any) -> None:
        nonlocal count
        count += 1
        if count > after:

            def full(fh: Any) -> None:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            real(path, full)
        else:
            real(path, write)

    store._write_atomic = write_atomic


def _shorten_judge_timeout(timeout_s: float, retries: int | None) -> None:
    from leakres_cli.stages.pipeline import Benchmark

    real = Benchmark.get_judge

    def get_judge(self: Any, name: str) -> Any:
        if name != "llm":
            return real(self, name)
        from leak_metrics import get_judge as make

        extra = {"max_retries": retries} if retries is not None else {}
        return make(
            "llm", model=self.cfg.judge_model, base_url=self.cfg.judge_base_url,
            cache_dir=str(self.out_dir / "judge-cache"), timeout_s=timeout_s, backoff_s=0.05, **extra,
        )  # fmt: skip

    Benchmark.get_judge = get_judge  # type: ignore[method-assign]


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        child(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--trials", type=int, default=20, help="kills of a running process (default 20)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("fault-injection-out"))
    parser.add_argument("--no-judge", action="store_true", help="skip the judge-fault trials")
    parser.add_argument("--no-disk", action="store_true", help="skip the disk-full trial")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    reference, ref_wall = make_reference(args.workdir)
    print(f"reference run: {ref_wall:.1f}s, {len(read_cells(reference)[0])} cells", flush=True)
    outcomes = []
    # --trials counts kills that hit a running process; a run that finished first (it can: the
    # offset is drawn on the reference's timing) is reported and another trial is drawn, up to
    # twice --trials in all.
    index = 0
    while sum(o.killed for o in outcomes) < args.trials and index < 2 * args.trials:
        outcomes.append(kill_trial(args.workdir, reference, ref_wall, index, args.seed))
        print(outcomes[-1].line(), flush=True)
        index += 1
    if not args.no_judge:
        for mode in ("500", "timeout", "garbage", "dead"):
            outcomes.append(judge_fault_trial(args.workdir, reference, mode))
            print(outcomes[-1].line(), flush=True)
    if not args.no_disk:
        outcomes.append(disk_full_trial(args.workdir, reference, args.seed))
        print(outcomes[-1].line(), flush=True)
    kills = [o for o in outcomes if o.name.startswith("kill")]
    print(
        f"summary: {sum(o.ok for o in outcomes)}/{len(outcomes)} trials ok; "
        f"{len(kills)} kill trials, {sum(o.killed for o in kills)} killed mid-run, "
        f"{sum(o.resumed_equal for o in kills)} resumed runs equal to the uninterrupted run; "
        f"{len(outcomes) - len(kills)} other faults ({sum(o.ok for o in outcomes[len(kills) :])} survived); "
        f"{time.perf_counter() - start:.0f}s",
        flush=True,
    )
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
