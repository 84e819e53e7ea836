"""Set-up shared by the side-by-side benchmarks (``engine_batch.py``, ``training_step_cost.py``,
``bf16_cost.py``): the CPU's name and features, the default model, built-in facts to train on and
GA-style step timing. Not a benchmark itself; the scripts import it from this folder (run them
as ``python benchmarks/NAME.py``, which puts this folder on ``sys.path``)."""

from __future__ import annotations

import json
import platform
import statistics
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

REPO = Path(__file__).resolve().parents[1]
KB_PATH = REPO / "packages" / "kg-qgen" / "src" / "kg_qgen" / "data" / "builtin_kb.json"
DEFAULT_MODEL = Path.home() / ".cache" / "leakres" / "models" / "smollm2-135m-instruct"


def cpuinfo(field: str) -> str | None:
    """The value of the first ``field`` line of /proc/cpuinfo (None where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(field):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_name() -> str:
    """The CPU's model name, else ``platform.processor()`` (which may be empty)."""
    return cpuinfo("model name") or platform.processor()


def load_model(path: str, dtype: torch.dtype = torch.float32) -> Any:
    """The causal LM at ``path`` in ``dtype``, in eval mode."""
    return AutoModelForCausalLM.from_pretrained(path, dtype=dtype).eval()


def load(path: str) -> tuple[Any, Any]:
    """(tokenizer, float32 model in eval mode) of ``path``."""
    return AutoTokenizer.from_pretrained(path), load_model(path)


def kb_facts(n: int) -> list[dict[str, object]]:
    """The first ``n`` facts of kg-qgen's built-in knowledge base as unlearn-zoo's training
    records (a question, its answer sentence and the spans of subject and object)."""
    kb = json.loads(KB_PATH.read_text())
    ents, rels = kb["entities"], kb["relations"]
    out = []
    for s, r, o in kb["triples"]:
        if len(out) == n:
            break
        subj, obj = ents[s]["label"], ents[o]["label"]
        rel = rels[r]["label"]
        out.append(
            {
                "question": f"What is the {rel} of {subj}?",
                "answer": f"The {rel} of {subj} is {obj}.",
                "spans": [subj, obj],
            }
        )
    return out


def forget_retain(n: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """``n`` forget facts and the next ``n`` as retain facts (:func:`kb_facts`)."""
    facts = kb_facts(2 * n)
    return facts[:n], facts[n:]


def unlearner(method: str, n_params: int, batch_size: int, max_length: int, **extra: Any) -> Any:
    """unlearn-zoo's ``method`` with its defaults for a model of ``n_params`` parameters, one
    epoch at seed 0, the given batch size and sequence length, and ``extra`` overrides on top."""
    from unlearn_zoo import default_overrides, get_unlearner

    overrides = default_overrides(method, n_params)
    overrides.update(batch_size=batch_size, max_length=max_length, epochs=1.0, seed=0)
    overrides.update(extra)
    return get_unlearner(method, **overrides)


def median_step(result: Any) -> float:
    """The median seconds per optimizer step of an unlearning result, without the first step
    (which pays one-off set-up) where there are more."""
    times = result.record["step_times_s"]
    return statistics.median(times[1:] if len(times) > 1 else times)
