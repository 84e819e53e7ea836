"""Bring your own unlearned model (`leakres eval`): the run's stages on a model unlearned elsewhere.

:class:`ExternalBenchmark` is a :class:`~leakres_cli.stages.pipeline.Benchmark` whose questions reach the
given forget facts, whose forget/retain selection is those facts (the ones the base model knows),
and whose one "method" is the supplied model, loaded instead of trained. Everything after that
(evaluation, attacks, utility, judging, scoring, results.json) is the run's own code, so the
numbers are computed exactly as `leakres run` computes them.

Facts files (``--forget``/``--retain``) and question sets are read by :mod:`leakres_cli.config.inputs`
(streamed, one-line errors; ``read_facts`` stays importable from here).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from leakres_cli.config.fact_check import FactIndex
from leakres_cli.config.inputs import read_facts, read_question_set  # noqa: F401 (read_facts: `eval` imports it here)
from leakres_cli.errors import LeakresError
from leakres_cli.models.black_box import RemoteModel, endpoint_router, load_tokenizer, remote_bbh
from leakres_cli.models.external_base import external_base_evaluation
from leakres_cli.records import Record, fact_key
from leakres_cli.scale.store import CellStore, fingerprint
from leakres_cli.stages.pipeline import Benchmark
from leakres_cli.stages.seeds import run_seeds, seed_store

#: the label of the supplied model in results.json's ``methods`` (it is no unlearn-zoo method)
DEFAULT_LABEL = "unlearned"
PEFT_ADAPTER_CONFIG = "adapter_config.json"
AS_ADAPTER_FILE = "attention_shift_adapter.safetensors"


@dataclass
class EvalInputs:
    """What `leakres eval` adds to a run configuration.

    Attributes:
        unlearned: the unlearned model: anything ``--model`` accepts, or a peft adapter directory
            (ARCHITECTURE.md section 8: loaded on its base, not merged) or an unlearn-zoo AS directory.
        forget: the forget facts (see the module docstring for the file format).
        retain: the retain facts; empty = chosen from the facts the base model knows, as `run` does.
        questions: a kg-qgen set folder (or questions.jsonl) to take the questions from; None = build
            them from ``--source`` (every multi-hop question kg-qgen finds that reaches a forget fact).
        label: the model's name in results.json's ``methods`` and the tables.
        adapter_base: the base model an adapter attaches to; None = ``--base``.
        endpoint: an OpenAI-compatible ``/v1`` URL serving the unlearned model (black box: no
            weights here); ``unlearned`` is then the name the server answers to.
        base_endpoint: the same for the base model (``--base`` is then the name the server
            answers to): its answers and BBH come from there (:mod:`leakres_cli.models.black_box`).
        tokenizer: the model whose tokenizer formats the prompts of a black-box base; None =
            ``--base`` (its tokenizer files only; no weights are loaded).
    """

    unlearned: str
    forget: list[dict[str, str]]
    retain: list[dict[str, str]] = field(default_factory=list)
    questions: str | None = None
    label: str = DEFAULT_LABEL
    adapter_base: str | None = None
    endpoint: str | None = None
    base_endpoint: str | None = None
    tokenizer: str | None = None

    def describe(self) -> dict[str, Any]:
        """Everything the cells depend on besides the run options (into the fingerprint; the
        black-box fields only when set, so an eval without them keeps its cells)."""
        black_box = {"base_endpoint": self.base_endpoint, "tokenizer": self.tokenizer}
        return {
            **{k: v for k, v in black_box.items() if v is not None},
            "unlearned": self.unlearned,
            "forget": self.forget,
            "retain": self.retain,
            "questions": self.questions,
            "label": self.label,
            "adapter_base": self.adapter_base,
            "endpoint": self.endpoint,
        }


def _resolve(facts: Sequence[dict[str, str]], index: Any):
    """(fact, SH question id or None, reason) per fact (:class:`~leakres_cli.config.fact_check.FactIndex`:
    ids must be SH questions of the set, labels a fact of the source that kg-qgen asks)."""
    return [(fact, index.question_id(fact), index.reason(fact)) for fact in facts]


def build_external_questions(cfg: Any, inputs: EvalInputs) -> dict[str, Any]:
    """The ``questions`` cell of an eval: the SH question of every fact (the pool: forget and retain
    facts first, then a seeded sample up to ``--sh-pool``), every multi-hop question of the chosen
    types that reaches a forget fact, and the facts that could not be found, with the reason."""
    import kg_qgen

    multi_types = tuple(t for t in cfg.types if t != "SH")
    rejects = 0
    if inputs.questions is not None:
        all_q = read_question_set(inputs.questions)
        single = [q for q in all_q if q["type"] == "SH"]
        multi = [q for q in all_q if q["type"] in multi_types]
        n_facts = len({fact_key(q["target"]) for q in single})
        shortfall: dict[str, Any] = {}
        index = FactIndex(single)
    else:
        graph = kg_qgen.load_source(cfg.source, cfg.source_path)
        built_sh = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed)
        single, rejects = built_sh.questions, len(built_sh.rejects)
        multi = []
        if multi_types:  # every match: the facts are fixed, so nothing is sampled away
            built = kg_qgen.build(graph, types=multi_types, per_type=10**9, seed=cfg.seed)
            multi, rejects = built.questions, rejects + len(built.rejects)
        n_facts, shortfall = len(graph), {}
        index = FactIndex(single, built_sh.rejects, graph)
    sh_by_id = index.sh_by_id
    forget = _resolve(inputs.forget, index)
    retain = _resolve(inputs.retain, index)
    forget_ids = list(dict.fromkeys(i for _, i, _ in forget if i))
    retain_ids = [i for _, i, _ in retain if i and i not in forget_ids]
    forget_keys = {fact_key(sh_by_id[i]["target"]) for i in forget_ids}
    reached = [q for q in multi if fact_key(q["target"]) in forget_keys]
    needed = set(forget_ids) | set(retain_ids)
    others = [q for q in single if q["id"] not in needed]
    random.Random(cfg.seed).shuffle(others)
    n_pool_others = max(0, cfg.sh_pool - len(needed))
    pool = [sh_by_id[i] for i in forget_ids + retain_ids] + others[:n_pool_others]
    questions = pool + reached
    return {
        "questions": questions,
        "counts": dict(Counter(q["type"] for q in questions)),
        "shortfall": shortfall,
        "n_rejects": rejects,
        "n_facts": n_facts,
        "sh_reserve": others[n_pool_others:],
        "requested": {"forget_ids": forget_ids, "retain_ids": retain_ids},
        "missing": [
            {"fact": f, "role": role, "reason": why}
            for role, rows in (("forget", forget), ("retain", retain))
            for f, _, why in rows
            if why
        ],
    }


def load_unlearned(
    spec: str, *, base: str, dtype: str, adapter_base: str | None = None
) -> tuple[Any, str, str]:
    """(model, kind, path) of the supplied unlearned model: ``adapter`` (peft, on ``base``),
    ``attention_shift`` (unlearn-zoo AS) or ``model`` (anything ``--model`` accepts)."""
    import torch

    from leakres_cli.models.catalog import load_model, resolve_model

    path = Path(spec).expanduser()
    if path.is_dir() and (
        (path / PEFT_ADAPTER_CONFIG).is_file() or (path / AS_ADAPTER_FILE).is_file()
    ):
        from recover_attacks import load_model as load_checkpoint

        kind = "adapter" if (path / PEFT_ADAPTER_CONFIG).is_file() else "attention_shift"
        base_path = resolve_model(adapter_base or base) if kind == "adapter" else None
        try:
            model = load_checkpoint(path, dtype=getattr(torch, dtype), base_model=base_path)
        except Exception as exc:  # recover-attacks names the path; keep its one line
            raise LeakresError(f"cannot load the unlearned model {path}: {exc}") from exc
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model.to(device)
        model.eval()
        return model, kind, str(path)
    model, _, resolved = load_model(spec, dtype=dtype)
    return model, "model", resolved


class ExternalBenchmark(Benchmark):
    """A run whose one method is the supplied unlearned model (module docstring)."""

    #: results.json's ``seeds.label`` (``--seeds``): the model is given, so only sampling reruns
    seeds_label = (
        "each seed reruns the attacks' sampling and the seeded draws (false-recovery control "
        "items, bootstrap CIs) on the supplied model; its greedy evaluation and BBH, the "
        "questions and the base evaluation are --seed's, shared by every seed; mean over the "
        "seeds where the metric is defined, std = sample standard deviation (ddof 1; none for "
        "one seed)"
    )

    def __init__(self, cfg: Any, out_dir: Path, inputs: EvalInputs, **kwargs: Any) -> None:
        super().__init__(cfg, out_dir, **kwargs)
        self.inputs = inputs
        # The cells depend on the supplied model and facts too, not only on the run options.
        self.store = CellStore(
            out_dir,
            fingerprint({**cfg.fingerprint_dict(), "eval": inputs.describe()}),
            self.weights_record,
        )
        if inputs.endpoint is not None or inputs.base_endpoint is not None:
            self.generation = endpoint_router(self.generation)
        self.tokenizer_path: str | None = None
        # the run whose cells every --seeds seed shares (stages/seeds.seed_run copies this object,
        # the copies keep this one): the supplied model is the same at every seed
        self.shared: ExternalBenchmark = self

    def weights_record(self) -> dict[str, Any]:
        """The base and the unlearned model's digests (an endpoint's: its model list and a probe;
        an adapter's: its files, plus the model it attaches to when that is not ``--base``)."""
        from leakres_cli.models.weights import endpoint_digest, model_digest

        inp = self.inputs
        record = {
            "base": endpoint_digest(inp.base_endpoint, self.cfg.model)
            if inp.base_endpoint is not None
            else model_digest(self.cfg.model),
            "unlearned": endpoint_digest(inp.endpoint, inp.unlearned)
            if inp.endpoint is not None
            else model_digest(inp.unlearned),
        }
        if inp.adapter_base is not None and inp.endpoint is None:
            record["adapter_base"] = model_digest(inp.adapter_base)
        return record

    def model(self) -> tuple[Any, Any]:
        """The base model and tokenizer; a black-box base is a :class:`RemoteModel` (its answers
        come from ``--base-endpoint``) with the tokenizer of ``--tokenizer`` (default ``--base``)."""
        if self.inputs.base_endpoint is None:
            return super().model()
        if self._model is None:
            name = self.inputs.tokenizer or self.cfg.model
            option = "--tokenizer" if self.inputs.tokenizer else "--base"
            self._tokenizer, self.tokenizer_path = load_tokenizer(name, option)
            self._model = RemoteModel(
                self.inputs.base_endpoint, self.cfg.model, self.cfg.engine_prompts
            )
        return self._model, self._tokenizer

    def bbh(self, name: str, get_model: Any) -> dict[str, Any]:
        """BBH of a model behind an endpoint goes to that endpoint; a local model's as in `run`.
        Greedy, on ``--seed``'s examples, of a model no seed changes: one cell, shared by every
        ``--seeds`` seed (``--seed``'s)."""
        host = self.shared
        remote = host.inputs.base_endpoint if name == "bbh-base" else host.inputs.endpoint
        if remote is None:
            return Benchmark.bbh(host, name, get_model)
        model = host.model()[0] if name == "bbh-base" else get_model()
        return remote_bbh(host, name, model)

    def evaluate_method(
        self, method: str, by_id: dict[str, Record], base: dict[str, Any], get_unlearned: Any
    ) -> dict[str, Any]:
        """The supplied model's greedy answers (``METHOD/eval``): no seed changes the model or
        its greedy decoding, so every ``--seeds`` seed shares ``--seed``'s cell; only the
        attacks' sampling (and the seeded draws: control items, bootstrap) reruns per seed."""
        return Benchmark.evaluate_method(self.shared, method, by_id, base, get_unlearned)

    def eval_record(self, model_path: str | None) -> dict[str, Any]:
        """results.json's ``eval`` block: what was measured, what was left out and why (after
        :meth:`run`; ``model_path``: the base model's resolved path, None behind an endpoint)."""
        base = self.store.get("base") or {}
        method = self.cfg.methods[0]
        # the unlearned model as the first seed loaded it (--seeds need not include --seed)
        unlearn = seed_store(self, run_seeds(self.cfg)[0]).get(f"{method}/unlearn") or {}
        if self.inputs.base_endpoint is not None:
            base_model = {**self.model()[0].describe(), "tokenizer": self.tokenizer_path}
        else:
            base_model = {"model": self.cfg.model, "kind": "model", "path": model_path}
        return {
            "base": base_model,
            "unlearned": unlearn.get("external"),
            "label": method,
            "questions": self.inputs.questions,
            "facts_requested": {
                "forget": len(self.inputs.forget),
                "retain": len(self.inputs.retain),
            },
            "facts_excluded": base.get("excluded", []),
        }

    def build_questions(self) -> dict[str, Any]:
        return self.store.cached(
            "questions", lambda: build_external_questions(self.cfg, self.inputs)
        )

    def base_evaluation(self, questions: list[Record], reserve: list[Record]) -> dict[str, Any]:
        data = self.store.get("questions")
        return external_base_evaluation(self, questions, reserve, data, len(self.inputs.forget))

    def unlearn(self, method: str, forget: list[Record], retain: list[Record]):
        from leakres_cli.models.engines import resolve_dtype

        if self.inputs.endpoint is not None:
            remote = RemoteModel(
                self.inputs.endpoint, self.inputs.unlearned, self.cfg.engine_prompts
            )
            record = {"method": "external", "external": remote.describe(), "config": {}}
            return remote, record
        dtype = resolve_dtype(self.cfg.dtype)
        model, kind, path = load_unlearned(
            self.inputs.unlearned,
            base=self.cfg.model,
            dtype=dtype,
            adapter_base=self.inputs.adapter_base,
        )
        _check_same_tokenizer(self, path, kind)
        if self.cfg.engine != "local" and kind == "adapter":
            model = model.merge_and_unload()  # a server loads weights, not a peft adapter
        # The checkpoint's own unlearn-zoo record when it has one (its training sizes and config).
        saved = Path(path) / "unlearn_record.json"
        record: dict[str, Any] = json.loads(saved.read_text()) if saved.is_file() else {}
        record["external"] = {"model": self.inputs.unlearned, "path": path, "kind": kind}
        record.setdefault("method", "external")
        record.setdefault("config", {"use_lora": kind == "adapter"})
        return model, record


def _check_same_tokenizer(bench: Benchmark, path: str, kind: str) -> None:
    """The run prompts every model with the base tokenizer: the unlearned one must share it."""
    if kind != "model" or not Path(path).is_dir():
        return
    from transformers import AutoTokenizer

    _, base_tok = bench.model()
    try:
        other = AutoTokenizer.from_pretrained(path)
    except OSError:
        return  # a model directory without tokenizer files: the base's is the only one there is
    if other.get_vocab() != base_tok.get_vocab():
        raise LeakresError(
            f"the unlearned model {path} has a different tokenizer from the base model "
            f"{bench.cfg.model}; leakres prompts both with the base tokenizer"
        )


def unlearned_is_checkpoint(unlearned: str) -> tuple[bool, bool]:
    """(peft adapter directory, adapter or unlearn-zoo AS checkpoint directory)."""
    path = Path(unlearned).expanduser()
    adapter = path.is_dir() and (path / PEFT_ADAPTER_CONFIG).is_file()
    return adapter, adapter or (path.is_dir() and (path / AS_ADAPTER_FILE).is_file())
