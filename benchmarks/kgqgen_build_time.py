"""Wall time of ``kg-qgen build`` on MQuAKE-hard dev and the built-in KB (100 per type, all types).

Times load + build (+ the verification this tree runs by default) + save, in a fresh process per
run. Requirement (issue 9): MQuAKE dev under 30 s. Run:

    python benchmarks/kgqgen_build_time.py [--mquake PATH] [--repeats 3] [--baseline main]

``--baseline REF`` runs the same workload on ``packages/kg-qgen/src`` of git revision REF
alternately with this tree (:mod:`_kgqgen_baseline`) and prints the medians side by side. The
MQuAKE file defaults to ``$LEAKRES_DATA_DIR/mquake/MQuAKE-hard-dev.json`` or
``../shared/data/mquake/MQuAKE-hard-dev.json`` beside the checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def default_mquake() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    base = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    return base / "mquake" / "MQuAKE-hard-dev.json"


def measure(mquake: Path) -> dict:
    import kg_qgen

    out: dict = {"version": kg_qgen.__file__}
    for name, source, path in (("mquake_dev", "mquake", str(mquake)), ("builtin", "builtin", None)):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            graph = kg_qgen.load_source(source, path)
            t1 = time.perf_counter()
            result = kg_qgen.build(graph, per_type=100, seed=0)
            t2 = time.perf_counter()
            kg_qgen.save(result, Path(tmp) / "out")
            t3 = time.perf_counter()
        verified = getattr(result, "verification", None)
        out[name] = {
            "load_s": t1 - t0,
            "build_s": t2 - t1,
            "save_s": t3 - t2,
            "total_s": t3 - t0,
            "kept": sum(c["kept"] for c in result.counts.values()),
            "verified": None if verified is None else verified["ok"],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mquake", type=Path, default=default_mquake())
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", default=None, help="git revision to compare with, e.g. main")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.mquake.is_file():
        sys.exit(f"MQuAKE-hard dev not found at {args.mquake} (--mquake or LEAKRES_DATA_DIR)")
    if args.worker:
        print(json.dumps(measure(args.mquake)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _kgqgen_baseline import _worker, median, run_side_by_side

    if args.baseline:
        base, new = run_side_by_side(
            Path(__file__), ["--mquake", str(args.mquake)], args.baseline, args.repeats
        )
    else:
        base, new = (
            [],
            [
                _worker(Path(__file__), ["--mquake", str(args.mquake)], None)
                for _ in range(args.repeats)
            ],
        )
    label = args.baseline or "-"
    print(f"{args.repeats} runs each, medians in seconds (load + build + save, 100 per type)")
    print(f"{'':<24}{label:>10}{'this tree':>12}{'new/old':>10}")
    for name in ("mquake_dev", "builtin"):
        for part in ("load_s", "build_s", "save_s", "total_s"):
            new_v = median([m[name][part] for m in new])
            if base:
                old_v = median([m[name][part] for m in base])
                print(
                    f"{name + ' ' + part[:-2]:<24}{old_v:>10.2f}{new_v:>12.2f}{new_v / old_v:>10.2f}"
                )
            else:
                print(f"{name + ' ' + part[:-2]:<24}{'':>10}{new_v:>12.2f}")
        print(f"{name} kept {new[0][name]['kept']} questions, verified: {new[0][name]['verified']}")


if __name__ == "__main__":
    main()
