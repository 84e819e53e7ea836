"""How well would a one- or two-word rule read a yes/no type if the answers were noise?

`kg-qgen verify` fails a yes/no type when its best rule of one or two words (presence, either
polarity, one word flipping another: ``kg_qgen.verify.balance.best_short_rule``) is right on more
than 65% of at least 60 items. The best of thousands of rules fitted to the same items is biased
upwards, so the threshold only means something next to the rule's accuracy when the answers carry
no signal at all. This script measures that null: it keeps the questions of a built set and
permutes their yes/no answers at random (seeded), ``--permutations`` times, and prints the actual
best rule beside the null's median, 95th percentile and the share of permutations above 0.65.

A null median above 0.65 means that a set of these questions, with wordings drawn independently
per item, fails the check most of the time by chance alone. Up to round three kg-qgen's build
therefore filtered the kept yes/no MT set's wordings adversarially (seeded redraws until the rule
was within the bound); MT items are two-option items since issue 34 and that filter is gone
(issue 37). This script still shows how far a yes/no set's best rule sits from the null.

    python benchmarks/kgqgen_short_rule_null.py SET_DIR [--type MT] [--permutations 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

from kg_qgen.verify.balance import best_short_rule

THRESHOLD = 0.65


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set_dir", type=Path, help="a kg-qgen build folder (questions.jsonl)")
    parser.add_argument("--type", default="MT", help="a yes/no question type (default MT)")
    parser.add_argument("--permutations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    path = args.set_dir / "questions.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    items = [r for r in records if r.get("type") == args.type]
    if not items:
        raise SystemExit(f"{path}: no {args.type} question")
    questions = [r["question"] for r in items]
    answers = [str(r["answer"]).strip().lower() for r in items]
    if set(answers) - {"yes", "no"}:
        raise SystemExit(f"{path}: {args.type} is not a yes/no type")

    actual = best_short_rule(questions, answers)
    rng = random.Random(args.seed)
    null = []
    for _ in range(args.permutations):
        shuffled = answers[:]
        rng.shuffle(shuffled)
        null.append(best_short_rule(questions, shuffled).accuracy)
    null.sort()
    p95 = null[min(len(null) - 1, int(0.95 * len(null)))]
    above = sum(a > THRESHOLD for a in null) / len(null)
    print(f"{args.type}: n {len(items)}, yes {answers.count('yes')}")
    print(f"actual best rule: {actual.accuracy:.3f} ({actual.rule})")
    print(
        f"null, answers permuted {args.permutations}x (seed {args.seed}): median "
        f"{statistics.median(null):.3f}, 95th percentile {p95:.3f}, share above {THRESHOLD}: "
        f"{above:.2f}"
    )


if __name__ == "__main__":
    main()
