"""BIG-Bench Hard (27 tasks) utility scoring with the official chain-of-thought few-shot prompts.

Data: ``$LEAKRES_DATA_DIR/bbh/`` (files ``bbh/<task>.json`` and ``cot-prompts/<task>.txt`` as in
suzgunmirac/BIG-Bench-Hard), or downloaded from that repository's raw files into a disk cache
(``source="remote"``, or ``"auto"`` when no local copy exists).

Prompting (plain text completion, as in the BBH paper):

* ``cot=True`` (default): ``<task description + 3 worked examples>\\n\\nQ: <input>\\nA: Let's think
  step by step.`` and the model writes a rationale ending in "So the answer is X.". Needs
  ~128-256 new tokens.
* ``cot=False`` (answer-only, for quick CPU runs): the same three examples with their rationale
  removed (``A: So the answer is X.``), the query ends with ``A: So the answer is`` and a handful of
  new tokens suffice.

Scoring: the generation is cut at the next ``Q:`` (a model continuing the few-shot pattern), the
text after the first "the answer is" (case-insensitive) up to the end of the line is the answer;
answer and target are normalised like the BBH evaluation (strip, drop a trailing period,
multiple-choice letters as ``(X)`` whether written ``X``, ``(X)`` or ``(X) text``) and compared by
exact match, case-insensitively. Per-task accuracy and the overall macro average over tasks get
bootstrap CIs (overall: resampled within each task).
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from leak_metrics._optional import require
from leak_metrics.datatypes import MetricValue
from leak_metrics.errors import InputError
from leak_metrics.metrics import DEFAULT_RESAMPLES, _percentile_ci, accuracy

BBH_TASKS: tuple[str, ...] = (
    "boolean_expressions",
    "causal_judgement",
    "date_understanding",
    "disambiguation_qa",
    "dyck_languages",
    "formal_fallacies",
    "geometric_shapes",
    "hyperbaton",
    "logical_deduction_five_objects",
    "logical_deduction_seven_objects",
    "logical_deduction_three_objects",
    "movie_recommendation",
    "multistep_arithmetic_two",
    "navigate",
    "object_counting",
    "penguins_in_a_table",
    "reasoning_about_colored_objects",
    "ruin_names",
    "salient_translation_error_detection",
    "snarks",
    "sports_understanding",
    "temporal_sequences",
    "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects",
    "tracking_shuffled_objects_three_objects",
    "web_of_lies",
    "word_sorting",
)

REMOTE_BASE = "https://raw.githubusercontent.com/suzgunmirac/BIG-Bench-Hard/main"
COT_CUE = "Let's think step by step."
ANSWER_CUE = "So the answer is"


def default_data_dir() -> Path:
    """``$LEAKRES_DATA_DIR/bbh``, else ``<repo root>/../shared/data/bbh`` of a source checkout."""
    env = os.environ.get("LEAKRES_DATA_DIR")
    if env:
        return Path(env) / "bbh"
    # src/leak_metrics/bbh.py -> parents[4] is the repository root of a source checkout.
    return Path(__file__).resolve().parents[4] / ".." / "shared" / "data" / "bbh"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "leak_metrics" / "bbh"


@dataclass(frozen=True)
class BBHTask:
    """One task: its examples (``{"input", "target"}``) and the few-shot CoT prompt text (canary
    header removed)."""

    name: str
    examples: list[dict[str, str]]
    cot_prompt: str


def _strip_canary(text: str) -> str:
    marker = "\n-----\n"
    if marker in text:
        return text.split(marker, 1)[1]
    return text


def _read_or_fetch(relative: str, data_dir: Path, source: str, cache_dir: Path) -> str:
    local = data_dir / relative
    if source in ("local", "auto") and local.is_file():
        return local.read_text(encoding="utf-8")
    if source == "local":
        raise FileNotFoundError(
            f"BBH file {local} not found; set LEAKRES_DATA_DIR or use source='remote'"
        )
    cached = cache_dir / relative
    if not cached.is_file():
        url = f"{REMOTE_BASE}/{relative}"
        with urllib.request.urlopen(url, timeout=60) as reply:
            payload = reply.read().decode("utf-8")
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(payload, encoding="utf-8")
    return cached.read_text(encoding="utf-8")


def load_bbh_task(
    task: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    source: str = "auto",
    cache_dir: str | os.PathLike[str] | None = None,
) -> BBHTask:
    """Load one task. ``source``: ``"local"`` (data dir only), ``"remote"`` (GitHub raw files with
    a disk cache) or ``"auto"`` (local when present, else remote)."""
    if task not in BBH_TASKS:
        import difflib

        close = difflib.get_close_matches(task, BBH_TASKS, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ValueError(f"unknown BBH task '{task}'; {hint}Known: {', '.join(BBH_TASKS)}")
    if source not in ("local", "remote", "auto"):
        raise ValueError(f"source must be 'local', 'remote' or 'auto', got '{source}'")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    examples_text = _read_or_fetch(f"bbh/{task}.json", root, source, cache)
    prompt_text = _read_or_fetch(f"cot-prompts/{task}.txt", root, source, cache)
    try:
        examples = json.loads(examples_text)["examples"]
    except (json.JSONDecodeError, KeyError) as exc:
        raise InputError(f"bbh/{task}.json: expected a JSON object with 'examples'") from exc
    return BBHTask(task, examples, _strip_canary(prompt_text).strip())


def direct_prompt(cot_prompt: str) -> str:
    """The few-shot prompt with every rationale removed: ``A: So the answer is X.``"""
    blocks = cot_prompt.split("\n\nQ: ")
    out = [blocks[0]]
    for block in blocks[1:]:
        question, _, answer = block.partition("\nA: ")
        match = re.search(r"So the answer is (.*?)\.?\s*$", answer, flags=re.DOTALL)
        if match is None:
            raise InputError(f"few-shot example without 'So the answer is': {block[:60]!r}")
        out.append(f"{question}\nA: {ANSWER_CUE} {match.group(1).strip()}.")
    return "\n\nQ: ".join(out)


def few_shot_prefix(task: BBHTask, *, cot: bool) -> str:
    """Task description and the three worked examples (with or without rationale)."""
    return task.cot_prompt if cot else direct_prompt(task.cot_prompt)


def build_prompt(task: BBHTask, example_input: str, *, cot: bool) -> str:
    cue = COT_CUE if cot else ANSWER_CUE
    return f"{few_shot_prefix(task, cot=cot)}\n\nQ: {example_input}\nA: {cue}"


_MC_TARGET = re.compile(r"^\([A-R]\)$")
_MC_OPTION = re.compile(r"^\(?([A-R])\)?(?:$|[\s.:,)])")


def normalize_answer(text: str, *, multiple_choice: bool = False) -> str:
    """BBH-style normalisation: strip, drop a trailing period, casefold; with
    ``multiple_choice`` an option written ``B``, ``(B)`` or ``(B) text`` becomes ``(b)``."""
    text = text.strip()
    if text.endswith("."):
        text = text[:-1].strip()
    if multiple_choice:
        match = _MC_OPTION.match(text)
        if match:
            return f"({match.group(1)})".casefold()
    return text.casefold()


def extract_answer(generation: str, *, cot: bool = True) -> str | None:
    """The answer stated after "the answer is" (``None`` when the model never states one).

    With ``cot=False`` the prompt already ends with the cue, so the generation itself is the answer.
    """
    text = re.split(r"\n\s*Q:", generation, maxsplit=1)[0]
    if not cot:
        text = f"{ANSWER_CUE} {text.lstrip()}"
    match = re.search(r"the answer is\s*(.*)", text, flags=re.IGNORECASE)
    if match is None:
        return None
    answer = match.group(1).split("\n", 1)[0].strip()
    return answer or None


def is_correct(extracted: str | None, target: str) -> bool:
    """Exact match after normalisation; option letters are normalised only when the target is
    an option like ``(B)``, so a free-text answer such as "A tree" is never read as option A."""
    if extracted is None:
        return False
    multiple_choice = bool(_MC_TARGET.match(target.strip()))
    return normalize_answer(extracted, multiple_choice=multiple_choice) == normalize_answer(
        target, multiple_choice=multiple_choice
    )


@dataclass(frozen=True)
class BBHConfig:
    """Settings recorded with every BBH result.

    tasks: task names (None = all 27). limit: examples per task drawn with ``seed`` (None = all).
    batch_size: prompts per ``generate`` call (left padding). max_new_tokens: generation cap
    (None = 256 with CoT, 16 without). cot: chain-of-thought prompting (see module docstring).
    seed: example sampling and bootstrap seed. n_resamples: bootstrap resamples.
    """

    tasks: tuple[str, ...] | None = None
    limit: int | None = None
    batch_size: int = 16
    max_new_tokens: int | None = None
    cot: bool = True
    seed: int = 0
    n_resamples: int = DEFAULT_RESAMPLES

    def resolved_max_new_tokens(self) -> int:
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        return 256 if self.cot else 16


@dataclass
class BBHResult:
    """Per-task accuracy, macro-average ``overall``, wall time, and one record per example
    (``task``, ``index``, ``target``, ``generation``, ``extracted``, ``correct``)."""

    per_task: dict[str, MetricValue]
    overall: MetricValue
    wall_time: float
    records: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def correct(self) -> list[bool]:
        """Per-example correctness in record order (input to ``utility_ratio``)."""
        return [bool(r["correct"]) for r in self.records]

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_task": {k: v.to_dict() for k, v in self.per_task.items()},
            "overall": self.overall.to_dict(),
            "wall_time": self.wall_time,
            "config": self.config,
            "records": self.records,
        }


def select_examples(n_examples: int, limit: int | None, seed: int, task: str) -> list[int]:
    """Indices of the examples to score: all, or ``limit`` drawn with a per-task seeded RNG."""
    if limit is None or limit >= n_examples:
        return list(range(n_examples))
    rng = random.Random(f"{seed}:{task}")
    return sorted(rng.sample(range(n_examples), limit))


def _encode(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def generate_batched(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    batch_size: int,
    max_new_tokens: int,
    stop_strings: Sequence[str] = (),
    shared_prefix: str | None = None,
    desc: str = "generate",
) -> list[str]:
    """Greedy continuations of ``prompts`` in batches of ``batch_size``.

    Rows are left-padded. When every prompt starts with ``shared_prefix`` (the few-shot examples)
    the prefix is run through the model once and its KV cache is reused by every batch; padding
    then sits between prefix and question, masked out, and position ids follow the attention mask,
    so the result is the same greedy decoding as without the cache, at a fraction of the prefill
    cost. Prompts whose tokenisation does not start with the prefix tokens are decoded uncached.
    """
    torch = require("torch", "local", "BBH generation")
    from tqdm.auto import tqdm

    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    pad_id = int(tokenizer.pad_token_id)
    encoded = [_encode(tokenizer, p) for p in prompts]

    prefix_ids: list[int] = []
    prefix_cache: Any = None
    cache_kwarg = "cache"
    if shared_prefix:
        prefix_ids = _encode(tokenizer, shared_prefix)
        with torch.no_grad():
            prefix_out = model(
                input_ids=torch.tensor([prefix_ids], device=model.device), use_cache=True
            )
        # transformers >= 5.x names the KV cache `cache` (`past_key_values` is deprecated).
        cache_kwarg = (
            "cache" if getattr(prefix_out, "cache", None) is not None else "past_key_values"
        )
        prefix_cache = getattr(prefix_out, cache_kwarg)
    n_prefix = len(prefix_ids)

    def uses_prefix(ids: list[int]) -> bool:
        return prefix_cache is not None and len(ids) > n_prefix and ids[:n_prefix] == prefix_ids

    groups = [
        [i for i in range(len(prompts)) if uses_prefix(encoded[i])],
        [i for i in range(len(prompts)) if not uses_prefix(encoded[i])],
    ]
    extra: dict[str, Any] = {}
    if stop_strings:
        extra = {"stop_strings": list(stop_strings), "tokenizer": tokenizer}
    batches: list[tuple[bool, list[int]]] = []
    for cached, members in zip((True, False), groups, strict=True):
        # Similar lengths together keep padding (wasted compute) small.
        members = sorted(members, key=lambda i: -len(encoded[i]))
        batches += [
            (cached, members[s : s + batch_size]) for s in range(0, len(members), batch_size)
        ]

    outputs: list[str] = [""] * len(prompts)
    for cached, batch in tqdm(batches, desc=desc, leave=False):
        tails = [encoded[i][n_prefix:] if cached else encoded[i] for i in batch]
        width = max(len(t) for t in tails)
        head = prefix_ids if cached else []
        rows = [head + [pad_id] * (width - len(t)) + t for t in tails]
        masks = [[1] * len(head) + [0] * (width - len(t)) + [1] * len(t) for t in tails]
        kwargs: dict[str, Any] = dict(extra)
        if cached:
            cache = copy.deepcopy(prefix_cache)
            cache.batch_repeat_interleave(len(batch))
            kwargs[cache_kwarg] = cache
        input_ids = torch.tensor(rows, device=model.device)
        with torch.no_grad():
            generated = model.generate(
                input_ids=input_ids,
                attention_mask=torch.tensor(masks, device=model.device),
                do_sample=False,
                max_new_tokens=max_new_tokens,
                pad_token_id=pad_id,
                **kwargs,
            )
        new_tokens = generated[:, input_ids.shape[1] :]
        for row, index in enumerate(batch):
            outputs[index] = tokenizer.decode(new_tokens[row], skip_special_tokens=True)
    return outputs


def _macro_average(
    per_task_values: dict[str, np.ndarray], seed: int, n_resamples: int
) -> MetricValue:
    arrays = [a for a in per_task_values.values() if a.size]
    if not arrays:
        return MetricValue.undefined("no BBH examples scored")
    value = float(np.mean([a.mean() for a in arrays]))
    rng = np.random.default_rng(seed)
    # Stratified bootstrap: resample within each task, then average the task means.
    samples = np.mean(
        [a[rng.integers(0, a.size, size=(n_resamples, a.size))].mean(axis=1) for a in arrays],
        axis=0,
    )
    low, high = _percentile_ci(samples)
    return MetricValue(value, low, high, int(sum(a.size for a in arrays)))


def evaluate_bbh(
    model: Any,
    tokenizer: Any,
    tasks: Sequence[str] | None = None,
    limit: int | None = None,
    batch_size: int = 16,
    max_new_tokens: int | None = None,
    seed: int = 0,
    *,
    cot: bool = True,
    data_dir: str | os.PathLike[str] | None = None,
    source: str = "auto",
    n_resamples: int = DEFAULT_RESAMPLES,
) -> BBHResult:
    """Score ``model`` on BBH; see the module docstring for prompting and answer extraction."""
    config = BBHConfig(
        tuple(tasks) if tasks is not None else None,
        limit,
        batch_size,
        max_new_tokens,
        cot,
        seed,
        n_resamples,
    )
    task_names = list(config.tasks) if config.tasks is not None else list(BBH_TASKS)
    new_tokens = config.resolved_max_new_tokens()
    started = time.perf_counter()
    from tqdm.auto import tqdm

    loaded = [load_bbh_task(t, data_dir=data_dir, source=source) for t in task_names]
    records: list[dict[str, Any]] = []
    generations: list[str] = []
    for task in tqdm(loaded, desc="BBH tasks"):
        indices = select_examples(len(task.examples), limit, seed, task.name)
        prompts = [build_prompt(task, task.examples[i]["input"], cot=cot) for i in indices]
        # Stopping at a blank line ends a CoT answer right after "So the answer is X." instead of
        # letting the model invent the next few-shot example.
        generations += generate_batched(
            model,
            tokenizer,
            prompts,
            batch_size=batch_size,
            max_new_tokens=new_tokens,
            stop_strings=("\n\n", "\nQ:"),
            shared_prefix=few_shot_prefix(task, cot=cot),
            desc=task.name,
        )
        records += [
            {"task": task.name, "index": i, "target": task.examples[i]["target"]} for i in indices
        ]

    per_task_arrays: dict[str, list[bool]] = {t: [] for t in task_names}
    for record, generation in zip(records, generations, strict=True):
        extracted = extract_answer(generation, cot=cot)
        record["generation"] = generation
        record["extracted"] = extracted
        record["correct"] = is_correct(extracted, record["target"])
        per_task_arrays[record["task"]].append(record["correct"])

    per_task = {
        t: accuracy(values, seed=seed, n_resamples=n_resamples)
        for t, values in per_task_arrays.items()
    }
    overall = _macro_average(
        {t: np.asarray(v, dtype=float) for t, v in per_task_arrays.items()}, seed, n_resamples
    )
    config_dict = asdict(config)
    config_dict["max_new_tokens"] = new_tokens
    return BBHResult(per_task, overall, time.perf_counter() - started, records, config_dict)


def load_model(
    path_or_id: str | os.PathLike[str], *, dtype: str = "float32", device: str = "cpu"
) -> tuple[Any, Any]:
    """Load ``(model, tokenizer)`` from a hub id, a local directory, a ``.gguf`` file, or a
    directory holding exactly one ``.gguf`` file and no ``config.json`` (dequantised to ``dtype``)."""
    torch = require("torch", "local", "loading a model")
    transformers = require("transformers", "local", "loading a model")
    path = Path(path_or_id)
    kwargs: dict[str, Any] = {}
    target: str | Path = str(path_or_id)
    if path.suffix == ".gguf" and path.is_file():
        target, kwargs = path.parent, {"gguf_file": path.name}
    elif path.is_dir() and not (path / "config.json").exists():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            target, kwargs = path, {"gguf_file": ggufs[0].name}
        elif len(ggufs) > 1:
            names = ", ".join(g.name for g in ggufs)
            raise InputError(f"{path}: several .gguf files ({names}); pass the file path")
    tokenizer = transformers.AutoTokenizer.from_pretrained(target, **kwargs)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        target, dtype=getattr(torch, dtype), **kwargs
    )
    model.to(device)
    model.eval()
    return model, tokenizer
