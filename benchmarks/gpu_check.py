"""GPU check: every unlearner (full fine-tuning and LoRA) and every attack on an 8B-Llama-shaped model.

Not a unit test. The model has Llama-3.1-8B's shape (hidden 4096, 32 layers, 32 heads, 8 KV heads,
intermediate 14336, vocab 128256) with random weights in bf16, so nothing is downloaded; the numbers
are costs, not quality. It measures, in one run:

- per unlearner and mode (full / LoRA; AS trains its own adapter, so no LoRA mode): optimizer step
  time (median of the steps after the first, and the first, which includes warm-up), peak CUDA
  memory of the run (it includes the 16 GB input model the run copies), trainer, trainable params;
- per attack (probab, focus_on_key, quantization nf4, relearn, in_context): wall time for the
  questions, and generated tokens per second where the attack decodes;
- greedy decoding throughput against the memory-bandwidth limit: a batch-1 decode step has to read
  every weight once, so tokens/s <= bandwidth / bytes of the weights (H200: 4.8 TB/s / 16.06 GB
  ~ 299 tokens/s for this model). The achieved share of that ceiling is printed, and batch-16
  throughput for comparison.

    python benchmarks/gpu_check.py                  # a CUDA GPU, bf16 (H200: about 10 minutes)
    python benchmarks/gpu_check.py --tiny           # same code path, tiny config, CPU, seconds

``--tiny`` swaps only the model shape (and the sizes below) so the script itself is exercised on a
laptop; its bandwidth "share" is computed against the same ``--bandwidth-gbs`` and means nothing
on a CPU. Results go to stdout as markdown tables and to ``--json-out``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

LLAMA_31_8B = {
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": False,
}
TINY = {
    "hidden_size": 64,
    "intermediate_size": 256,  # bitsandbytes' 4-bit blocks need multiples of 64
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 512,
    "max_position_embeddings": 512,
    "rope_theta": 500000.0,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": False,
}
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
ATTACKS = ("probab", "focus_on_key", "quantization", "relearn", "in_context")


def facts(start: int, n: int) -> list[dict[str, Any]]:
    """Synthetic facts (random weights know none): distinct subjects, objects and relations."""
    out = []
    for i in range(start, start + n):
        subject, obj = f"Person {i}", f"City {i}"
        out.append(
            {
                "id": f"SH-{i}",
                "type": "SH",
                "question": f"In which city was {subject} born?",
                "answer": obj,
                "spans": [subject, obj],
                "target": {"subject": subject, "relation": "place of birth", "object": obj},
            }
        )
    return out


def build_tokenizer(out: Path, corpus: list[str]) -> Any:
    """A small byte-level BPE with a ChatML template: real tokenizer machinery, no download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", bos_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    return AutoTokenizer.from_pretrained(out)


def build_model(shape: dict[str, Any], device: str, dtype: torch.dtype, tokenizer: Any) -> Any:
    """Random weights, created directly on ``device`` in ``dtype`` (no fp32 detour for 8B)."""
    config = LlamaConfig(
        **shape,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = LlamaForCausalLM._from_config(config, dtype=dtype)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model.eval()


def sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def free() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def weight_bytes(model: Any) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def check_unlearners(
    model: Any, tok: Any, forget: list[dict], retain: list[dict], args: argparse.Namespace
) -> list[dict[str, Any]]:
    from unlearn_zoo import default_overrides, get_unlearner, list_unlearners

    n_params = sum(p.numel() for p in model.parameters())
    rows = []
    methods = args.methods.split(",") if args.methods else list_unlearners()[:8]
    for method in methods:
        for mode in ("full", "lora"):
            if mode == "lora" and method == "as":
                continue  # AS trains its own bottleneck adapter and never uses LoRA
            over = {
                **default_overrides(method, n_params),
                "epochs": float(args.steps),  # >= 1 step per epoch, so the cap below binds
                "max_steps": args.steps,
                "batch_size": args.batch_size,
                "max_length": args.max_length,
                "use_lora": mode == "lora",
                "gradient_checkpointing": args.gradient_checkpointing,
                "loss_bound": None,  # random weights give arbitrary losses; timing is the point
            }
            if method == "tv":
                over.pop("retain_weight", None)
            row: dict[str, Any] = {"method": method, "mode": mode}
            try:
                u = get_unlearner(method, **over)
                t0 = time.perf_counter()
                res = u.unlearn(
                    model, tok, forget, [] if method == "tv" else retain, progress=False
                )
                rec = res.record
                times = rec["step_times_s"]
                row.update(
                    variant=rec["variant"],
                    trainer=rec["trainer"],
                    steps=rec["steps"],
                    first_step_s=times[0] if times else None,
                    step_s=statistics.median(times[1:]) if len(times) > 1 else None,
                    run_s=round(time.perf_counter() - t0, 1),
                    peak_cuda_gb=None
                    if rec["peak_cuda_mb"] is None
                    else round(rec["peak_cuda_mb"] / 1024, 1),
                    trainable=rec["n_trainable_params"],
                )
                del res, u
            except Exception as exc:  # one failing cell must not hide the others' numbers
                row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            free()
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def run_attack(
    name: str,
    model: Any,
    tok: Any,
    questions: list[dict],
    relearn: list[dict],
    args: argparse.Namespace,
) -> Any:
    from recover_attacks import get_attack

    settings: dict[str, Any] = {"max_new_tokens": args.new_tokens, "batch_size": args.attack_batch}
    if name == "quantization":
        settings["method"] = args.quant_method
    if name == "relearn":
        settings["steps"] = args.steps
    attack = get_attack(name, **settings)
    inputs = {
        "original_model": model,
        "relearn_data": [(r["question"], r["answer"]) for r in relearn],
        "context_facts": [(r["question"], r["answer"]) for r in relearn[:3]],
    }
    return attack.run(model, tok, questions, progress=False, **inputs)


def check_attacks(
    model: Any, tok: Any, questions: list[dict], relearn: list[dict], args: argparse.Namespace
) -> list[dict[str, Any]]:
    rows = []
    names = args.attacks.split(",") if args.attacks else list(ATTACKS)
    for name in names:
        row: dict[str, Any] = {"attack": name, "questions": len(questions)}
        try:
            if torch.cuda.is_available():
                torch.cuda.reset_peak_memory_stats()
            sync()
            t0 = time.perf_counter()
            results = run_attack(name, model, tok, questions, relearn, args)
            sync()
            wall = time.perf_counter() - t0
            n_resp = sum(len(r.responses) for r in results)
            row.update(
                wall_s=round(wall, 2),
                responses=n_resp,
                # upper bound on decoded tokens: every response decoded to the budget
                max_tokens_per_s=round(n_resp * args.new_tokens / wall, 1),
                peak_cuda_gb=round(torch.cuda.max_memory_allocated() / 2**30, 1)
                if torch.cuda.is_available()
                else None,
            )
            del results
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        free()
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


@torch.no_grad()
def check_decode(model: Any, tok: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Greedy decode throughput at batch 1 and batch 16 vs the weight-streaming ceiling."""
    device = next(model.parameters()).device
    wbytes = weight_bytes(model)
    ceiling = args.bandwidth_gbs * 1e9 / wbytes
    prompt = tok.apply_chat_template(
        [{"role": "user", "content": "In which city was Person 1 born?"}],
        add_generation_prompt=True,
        tokenize=False,
    )
    ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"].to(device)
    rows = []
    for batch in (1, 16):
        x = ids.repeat(batch, 1)
        kw = {"do_sample": False, "pad_token_id": tok.pad_token_id, "eos_token_id": None}
        model.generate(x, max_new_tokens=8, min_new_tokens=8, **kw)  # warm-up (kernels, allocator)
        sync()
        t0 = time.perf_counter()
        out = model.generate(
            x, max_new_tokens=args.decode_tokens, min_new_tokens=args.decode_tokens, **kw
        )
        sync()
        wall = time.perf_counter() - t0
        new = (out.shape[1] - x.shape[1]) * batch
        row = {
            "batch": batch,
            "new_tokens": new,
            "wall_s": round(wall, 3),
            "tokens_per_s": round(new / wall, 1),
            "weight_gb": round(wbytes / 1e9, 2),
            "bandwidth_gbs": args.bandwidth_gbs,
        }
        if batch == 1:
            row["ceiling_tokens_per_s"] = round(ceiling, 1)
            row["share_of_ceiling"] = round(new / wall / ceiling, 3)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--tiny", action="store_true", help="tiny config on CPU (tests the code path)")
    ap.add_argument("--steps", type=int, default=None, help="optimizer steps per unlearner (cap)")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--n-forget", type=int, default=None)
    ap.add_argument("--questions", type=int, default=None, help="questions per attack")
    ap.add_argument("--new-tokens", type=int, default=24, help="attack decoding budget")
    ap.add_argument("--attack-batch", type=int, default=16)
    ap.add_argument("--decode-tokens", type=int, default=None, help="tokens for the decode check")
    ap.add_argument("--bandwidth-gbs", type=float, default=4800.0, help="H200: 4800 GB/s")
    ap.add_argument("--quant-method", default="nf4")
    ap.add_argument("--methods", default="", help="comma list (default: all eight)")
    ap.add_argument("--attacks", default="", help=f"comma list (default: {','.join(ATTACKS)})")
    ap.add_argument(
        "--skip", default="", help="comma list of parts to skip: unlearn,attacks,decode"
    )
    ap.add_argument("--gradient-checkpointing", action="store_true")
    ap.add_argument("--json-out", type=Path, default=None)
    args = ap.parse_args()

    if args.tiny:
        device, dtype, shape = "cpu", torch.bfloat16, TINY
        torch.set_num_threads(1)
        defaults = {"steps": 2, "n_forget": 4, "questions": 4, "decode_tokens": 16}
    else:
        if not torch.cuda.is_available():
            sys.exit("no CUDA device: run with --tiny to check the code path on a CPU")
        device, dtype, shape = "cuda", torch.bfloat16, LLAMA_31_8B
        defaults = {"steps": 4, "n_forget": 32, "questions": 32, "decode_tokens": 256}
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    skip = set(filter(None, args.skip.split(",")))

    forget, retain = facts(0, args.n_forget), facts(1000, args.n_forget)
    relearn = facts(2000, 8)
    corpus = [f"{f['question']} {f['answer']}" for f in forget + retain + relearn] + [
        "user assistant"
    ]
    report: dict[str, Any] = {
        "tiny": args.tiny,
        "device": device,
        "dtype": str(dtype),
        "shape": shape,
    }
    with tempfile.TemporaryDirectory() as tmp:
        tok = build_tokenizer(Path(tmp) / "tok", corpus)
        t0 = time.perf_counter()
        model = build_model(shape, device, dtype, tok)
        n_params = sum(p.numel() for p in model.parameters())
        report["n_params"] = n_params
        report["gpu"] = torch.cuda.get_device_name() if device == "cuda" else None
        print(f"model: {n_params / 1e9:.3f}B params, {weight_bytes(model) / 1e9:.2f} GB in {dtype}, "
              f"built in {time.perf_counter() - t0:.1f}s on {report['gpu'] or device}", flush=True)  # fmt: skip
        if "decode" not in skip:
            report["decode"] = check_decode(model, tok, args)
        if "unlearn" not in skip:
            report["unlearners"] = check_unlearners(model, tok, forget, retain, args)
        if "attacks" not in skip:
            questions = forget[: args.questions]
            report["attacks"] = check_attacks(model, tok, questions, relearn, args)

    print()
    for row in report.get("decode", []):
        share = f", {100 * row['share_of_ceiling']:.1f}% of the {row['ceiling_tokens_per_s']} tok/s ceiling" if "share_of_ceiling" in row else ""  # fmt: skip
        print(f"decode batch {row['batch']}: {row['tokens_per_s']} tok/s{share}")
    if report.get("unlearners"):
        print("\n| method | mode | variant | trainer | steps | first step s | step s (median) | peak CUDA GB | trainable |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|---|")
        for r in report["unlearners"]:
            if "error" in r:
                print(f"| {r['method']} | {r['mode']} | ERROR: {r['error']} | | | | | | |")
                continue
            print(f"| {r['method']} | {r['mode']} | {r['variant']} | {r['trainer']} | {r['steps']} | {r['first_step_s']} | "
                  f"{r['step_s']} | {r['peak_cuda_gb']} | {r['trainable']:,} |")  # fmt: skip
    if report.get("attacks"):
        print("\n| attack | questions | wall s | responses | tok/s (upper bound) | peak CUDA GB |")
        print("|---|---|---|---|---|---|")
        for r in report["attacks"]:
            if "error" in r:
                print(f"| {r['attack']} | {r['questions']} | ERROR: {r['error']} | | | |")
                continue
            print(f"| {r['attack']} | {r['questions']} | {r['wall_s']} | {r['responses']} | {r['max_tokens_per_s']} | {r['peak_cuda_gb']} |")  # fmt: skip
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2))
    errors = [r for part in ("unlearners", "attacks") for r in report.get(part, []) if "error" in r]
    if errors:
        sys.exit(f"{len(errors)} cell(s) failed (see ERROR rows)")


if __name__ == "__main__":
    main()
