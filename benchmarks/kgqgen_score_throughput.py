"""Time per 100 questions of `kg-qgen score` against the scripted OpenAI-compatible judge.

The judge is :class:`kg_qgen.quality.testing.ScriptedQualityJudge` behind
:class:`kg_qgen.llm.testing.ScriptedChatServer` on 127.0.0.1 (fixed rules, not a model); requests
go through the real ``openai`` client and kg-qgen's OpenAIBackend / CachedBackend, exactly the
path `kg-qgen score` takes. Measured side by side in one run:

* zero server latency: the client-side cost per question (HTTP, JSON, parsing, bookkeeping) at
  max_concurrency 1 and 8;
* a simulated model latency (``--latency``, default 0.2 s per reply) at max_concurrency 1 and 8:
  what the concurrency limit buys against a real endpoint;
* a second, fully cached pass: the cost of a rerun.

Questions: the MQuAKE-hard dev build (seed 0) when ../shared/data is present, else the built-in
KB. Run:

    python benchmarks/kgqgen_score_throughput.py [--n 140] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import kg_qgen
from kg_qgen.llm.cache import CachedBackend
from kg_qgen.llm.openai_backend import OpenAIBackend
from kg_qgen.llm.testing import ScriptedChatServer
from kg_qgen.quality import QUALITY_PROMPT_VERSION, QualityJudge
from kg_qgen.quality.testing import ScriptedQualityJudge

REPO = Path(__file__).resolve().parents[1]


def questions(n: int) -> tuple[str, list[dict]]:
    data = Path(os.environ.get("LEAKRES_DATA_DIR", REPO.parent / "shared" / "data"))
    mquake = data / "mquake" / "MQuAKE-hard-dev.json"
    if mquake.is_file():
        name, graph = "MQuAKE-hard dev", kg_qgen.load_source("mquake", str(mquake))
    else:
        name, graph = "built-in KB", kg_qgen.load_source("builtin")
    per_type = -(-n // 7)
    recs = kg_qgen.build(graph, per_type=per_type, seed=0).questions
    return name, recs[:n]


def timed(
    server: ScriptedChatServer, records: list[dict], concurrency: int, cache: Path | None
) -> float:
    backend = OpenAIBackend(server.base_url, "scripted", max_concurrency=concurrency)
    judge_backend = CachedBackend(backend, cache, QUALITY_PROMPT_VERSION) if cache else backend
    judge = QualityJudge(judge_backend)
    t0 = time.perf_counter()
    out = judge.score(records)
    elapsed = time.perf_counter() - t0
    assert all(s.overall is not None for s in out), "the scripted judge must score every item"
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=140, help="questions scored per configuration")
    ap.add_argument("--latency", type=float, default=0.2, help="simulated seconds per reply")
    args = ap.parse_args()
    name, recs = questions(args.n)
    n = len(recs)
    print(f"{n} questions from {name}; seconds per 100 questions (lower is better)")
    for latency in (0.0, args.latency):
        with ScriptedChatServer(ScriptedQualityJudge(delay=latency)) as server:
            seq = timed(server, recs, 1, None)
            par = timed(server, recs, 8, None)
        print(
            f"latency {latency:.2f} s/reply: concurrency 1 {100 * seq / n:7.2f}  "
            f"concurrency 8 {100 * par / n:7.2f}  speed-up x{seq / par:.1f}"
        )
    # The cache key holds the endpoint URL, so both passes go to the same server.
    with (
        tempfile.TemporaryDirectory() as tmp,
        ScriptedChatServer(ScriptedQualityJudge(delay=args.latency)) as server,
    ):
        cold = timed(server, recs, 8, Path(tmp))
        warm = timed(server, recs, 8, Path(tmp))
        requests = len(server.requests)
    print(
        f"cache (latency {args.latency:.2f}, concurrency 8): first pass {100 * cold / n:.2f}, "
        f"cached rerun {100 * warm / n:.3f} s per 100 questions (x{cold / warm:.0f} faster; "
        f"{requests} requests for {2 * n} scorings)"
    )


if __name__ == "__main__":
    main()
