"""FocusOnKey's key-token search, three ways side by side in one run (issue 26): the whole-sequence
logits it used before; the LM head at the answer positions only (logits_to_keep); and that with
the chat prompt's shared prefix run once (its KV cache shared by every ablation, the default).

Not a unit test. Reads the FocusOnKey cells of a finished ``leakres run`` (default: the full
preset's run directory), recomputes every distinct question's key words on the default model
with each version, and prints CPU seconds per question for each (interleaved, so load affects
all alike), the ratios, and on how many questions each gives the same key words (in order)
as the old one and every contribution within 1e-4 of it. The CPU model, torch threads and dtype are printed with the figures.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/focus_on_key_cost.py RUN_DIR [--limit N]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch
from recover_attacks.attacks import focus_on_key as fok
from transformers import AutoModelForCausalLM, AutoTokenizer

DEFAULT_MODEL = Path.home() / ".cache" / "leakres" / "models" / "smollm2-135m-instruct"


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


@torch.no_grad()
def whole_sequence_logprobs(model, sequences, answer_len):  # the code before this change
    width = max(len(s) for s in sequences)
    ids = torch.zeros((len(sequences), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(list(s))
        mask[i, : len(s)] = 1
    logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
    totals = []
    for i, s in enumerate(sequences):
        n = len(s)
        positions = torch.arange(n - answer_len - 1, n - 1)
        totals.append(logp[i, positions, ids[i, n - answer_len : n]].sum())
    return torch.stack(totals)


def run_questions(run_dir: Path) -> list[tuple[str, str]]:
    """(question, gold answer) of every distinct question FocusOnKey attacked in the run."""
    built = json.loads((run_dir / "cells" / "questions.json").read_text())["payload"]
    by_id = {q["id"]: q for q in built["questions"]}
    ids: dict[str, None] = {}
    for cell in sorted(run_dir.glob("cells/*/attack-focus_on_key.json")):
        ids.update(dict.fromkeys(json.loads(cell.read_text())["payload"]["recovered"]))
    return [(by_id[i]["question"], by_id[i]["answer"]) for i in ids]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32).eval()
    items = run_questions(args.run_dir)
    if args.limit:
        items = items[: args.limit]
    versions = {
        "whole sequence": lambda m, p, rests, a: whole_sequence_logprobs(
            m, [[*p, *r] for r in rests], a
        ),
        "answer positions": lambda m, p, rests, a: fok.answer_logprobs(
            m, [[*p, *r] for r in rests], a
        ),
        "shared prefix": fok.answer_logprobs_after_prefix,
    }
    costs: dict[str, list[float]] = {name: [] for name in versions}
    same_keys = dict.fromkeys(versions, 0)
    close = dict.fromkeys(versions, 0)
    default = fok.answer_logprobs_after_prefix
    for question, answer in items:
        keys, values = {}, {}
        for name, fn in versions.items():
            fok.answer_logprobs_after_prefix = fn
            try:
                t0 = time.process_time()
                contribs = fok.token_contributions(model, tok, question, answer)
                costs[name].append(time.process_time() - t0)
            finally:
                fok.answer_logprobs_after_prefix = default
            keys[name] = fok.key_words(question, contribs, 3)
            values[name] = [c.contribution for c in contribs]
        for name in versions:
            same_keys[name] += keys[name] == keys["whole sequence"]
            pairs = zip(values[name], values["whole sequence"], strict=True)
            close[name] += all(abs(a - b) <= 1e-4 for a, b in pairs)
    print(
        f"CPU: {cpu_name()}; torch {torch.__version__}, {torch.get_num_threads()} thread(s), float32"
    )
    print(f"{len(items)} distinct questions from {args.run_dir}")
    base = statistics.fmean(costs["whole sequence"])
    for name, vals in costs.items():
        mean = statistics.fmean(vals)
        print(
            f"{name:17s} CPU s/question {mean:.3f} (sum {sum(vals):.1f}) x{base / mean:.2f}; "
            f"same key words {same_keys[name]}/{len(items)}, "
            f"contributions within 1e-4 {close[name]}/{len(items)}"
        )


if __name__ == "__main__":
    main()
