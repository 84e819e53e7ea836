"""Which engine generates a model's answers: in-process, or an OpenAI-compatible server per model.

``--engine local`` (default) decodes in this process with recover-attacks' ``LocalEngine`` (through
``recover_attacks.generate``). ``--engine openai --engine-cmd 'vllm serve {model} --port {port}'``
starts one server per model with recover-attacks' ``ServerProcess``: the base model from its path,
each unlearned model after saving it to ``OUT/engine/models/METHOD`` as safetensors. Answers are
requested from ``/v1/completions`` with prompts formatted here by the model's own tokenizer
(ARCHITECTURE.md section 3; sent as token ids by default, so no server adds a second BOS), so the
server sees exactly what the in-process engine sees. One server runs at a time: switching to
another model stops the previous one, and :meth:`GenerationRouter.close` stops the last.

Which stages use the server: greedy evaluation (base and unlearned) and the attacks in
:data:`SERVER_ATTACKS`. Attacks that need the weights (quantization re-quantizes them, relearn
trains on them) and in_context stay in-process; so does a model a plain safetensors server cannot
reproduce (one with forward hooks, e.g. Attention-Shifting adapters, or an unmerged peft adapter).
Unlearning, FocusOnKey's key-token search on theta_p and BBH also run in-process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import LeakresError
from .store import write_json_atomic

ENGINES = ("local", "openai")
PROMPT_MODES = ("ids", "text")
#: attacks whose decoding goes through the server (their other work, if any, stays in-process)
SERVER_ATTACKS = ("probab", "focus_on_key")
IN_PROCESS_ATTACKS = {
    "quantization": "re-quantizes the unlearned weights in-process",
    "relearn": "fine-tunes the unlearned weights in-process",
    "in_context": "runs in-process (not routed to the server)",
}


DTYPES = ("float32", "bfloat16", "auto")


def resolve_dtype(dtype: str) -> str:
    """``auto``: bfloat16 on CUDA (the paper's precision), float32 elsewhere (CPU bf16 is slow)."""
    if dtype not in DTYPES:
        raise LeakresError(f"unknown dtype '{dtype}'; known: {', '.join(DTYPES)}")
    if dtype != "auto":
        return dtype
    import torch

    return "bfloat16" if torch.cuda.is_available() else "float32"


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:  # not Linux
        return ""


def cpu_bf16_flags() -> list[str]:
    """The CPU's native bf16 matrix features (``avx512_bf16``, ``amx_bf16``) from /proc/cpuinfo
    (empty where they are absent or the file is not there, e.g. macOS)."""
    text = _cpuinfo()
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines()
                  if line.startswith("flags")), [])  # fmt: skip
    return sorted(f for f in ("avx512_bf16", "amx_bf16") if f in flags)


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo, else ``platform.processor()``)."""
    import platform

    for line in _cpuinfo().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def hardware_record(dtype: str) -> dict[str, Any]:
    """What results.json records of the hardware a run's speed figures depend on: device, CPU
    model and its native bf16 features, torch threads, and the dtype asked for and used."""
    import torch

    flags = cpu_bf16_flags()
    return {
        "device": "cuda" if torch.cuda.is_available() else "cpu",
        "cpu_model": cpu_model(),
        "cpu_native_bf16": bool(flags),
        "cpu_bf16_flags": flags,
        "torch_threads": torch.get_num_threads(),
        "dtype_requested": dtype,
        "dtype": resolve_dtype(dtype),
    }


def validate_engine(engine: str, command: str | None, prompts: str = "ids") -> None:
    """A one-line error before any work for an unknown engine or a missing/bad server command."""
    if engine not in ENGINES:
        import difflib

        close = difflib.get_close_matches(engine, ENGINES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise LeakresError(f"unknown --engine '{engine}'{hint} Known: {', '.join(ENGINES)}")
    if prompts not in PROMPT_MODES:
        raise LeakresError(
            f"--engine-prompts must be one of {', '.join(PROMPT_MODES)}, got '{prompts}'"
        )
    if engine == "openai":
        if not command:
            raise LeakresError(
                "--engine openai needs --engine-cmd, a server command template with {model} and "
                "{port}, e.g. 'vllm serve {model} --port {port}'"
            )
        for field in ("{model}", "{port}"):
            if field not in command:
                raise LeakresError(f"--engine-cmd '{command}' has no {field}")
    elif command:
        raise LeakresError("--engine-cmd is only used with --engine openai")


def unservable_reason(model: Any) -> str | None:
    """Why a plain safetensors server would not run this model as it is in memory (None: it would)."""
    if type(model).__name__.startswith("Peft") or hasattr(model, "peft_config"):
        return "an unmerged peft adapter (a server would load the base weights only)"
    for name, module in model.named_modules():
        if module._forward_hooks or module._forward_pre_hooks:
            where = name or "the model"
            return (
                f"forward hooks on {where} (e.g. Attention-Shifting adapters) a server cannot run"
            )
    return None


def save_for_server(model: Any, tokenizer: Any, target: Path) -> None:
    """The in-memory model as a loadable safetensors directory (ARCHITECTURE.md section 8 files)."""
    target.mkdir(parents=True, exist_ok=True)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:  # a GGUF-loaded model carries a stale quantization config
        quantizer.remove_quantization_config(model)
    model.save_pretrained(target, safe_serialization=True)
    tokenizer.save_pretrained(target)


class GenerationRouter:
    """Per run: gives each model its engine (None = in-process) and runs the routed attacks.

    Args:
        engine: ``local`` or ``openai``.
        command: the server command template (``{model}``, ``{port}``, optional ``{host}``).
        out_dir: the run directory; servers' logs and the saved unlearned models go to ``engine/``.
        prompts: ``ids`` (send token ids, exact) or ``text`` (for servers that accept text only).
        startup_timeout: seconds a server may take to answer its health check.
        concurrency: requests in flight at once.
        progress: progress bars.
    """

    def __init__(
        self,
        engine: str = "local",
        command: str | None = None,
        *,
        out_dir: Path,
        prompts: str = "ids",
        startup_timeout: float = 600.0,
        concurrency: int = 16,
        progress: bool = False,
    ) -> None:
        validate_engine(engine, command, prompts)
        self.engine, self.command, self.prompts = engine, command, prompts
        self.root = out_dir / "engine"
        self.startup_timeout, self.concurrency, self.progress = (
            startup_timeout,
            concurrency,
            progress,
        )
        self._labels: dict[int, str] = {}
        self._paths: dict[int, str] = {}
        self._current: tuple[Any, Any, Any] | None = None  # (model, ServerProcess, OpenAIEngine)

    # ------------------------------------------------------------------ models
    def register(self, model: Any, label: str, path: str | None = None) -> None:
        """Name a model (``base`` or the method); ``path``: a directory it already lives in."""
        self._labels[id(model)] = label
        if path is not None:
            self._paths[id(model)] = path

    def release(self, model: Any) -> None:
        """The model is about to be freed: stop its server and forget it."""
        if self._current is not None and self._current[0] is model:
            self._stop()
        self._labels.pop(id(model), None)
        self._paths.pop(id(model), None)

    def engine_for(self, model: Any, tokenizer: Any) -> Any | None:
        """The server engine for ``model``, started on first use; None means decode in-process."""
        if self.engine == "local":
            return None
        if self._current is not None and self._current[0] is model:
            return self._current[2]
        label = self._labels.get(id(model))
        if label is None:
            raise LeakresError("internal: a model reached the server engine without a name")
        reason = unservable_reason(model)
        if reason is not None:
            self._record(label, {"served": False, "reason": reason})
            return None
        self._stop()
        path = self._paths.get(id(model))
        if path is None:
            path = str(self.root / "models" / label)
            save_for_server(model, tokenizer, Path(path))
        from recover_attacks.engine import OpenAIEngine, ServerProcess

        started = time.perf_counter()
        server = ServerProcess(
            self.command,  # type: ignore[arg-type]  # validated: openai has a command
            model=path,
            startup_timeout=self.startup_timeout,
            log_path=self.root / f"server-{label}.log",
        )
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            server.start()
        except Exception as exc:  # ServerError quotes the log tail; keep the message one line
            first = str(exc).splitlines()[0]
            raise LeakresError(
                f"{label} model server failed ({first}); log: {server.log_path}"
            ) from exc
        client = OpenAIEngine(
            server.base_url,
            server.served_model,
            tokenizer=tokenizer,
            concurrency=self.concurrency,
            prompt_token_ids=self.prompts == "ids",
        )
        self._current = (model, server, client)
        self._record(
            label,
            {
                "served": True,
                "model_path": path,
                "base_url": server.base_url,
                "startup_s": round(time.perf_counter() - started, 3),
                "log": str(server.log_path),
            },
        )
        return client

    def close(self) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._current is not None:
            _, server, client = self._current
            self._current = None
            client.close()
            server.stop()

    # ------------------------------------------------------------------ record
    @property
    def _served_file(self) -> Path:
        return self.root / "served.json"

    def _record(self, label: str, entry: dict[str, Any]) -> None:
        """Persist per-model facts (a resumed run that starts no server still reports them)."""
        import json

        served = json.loads(self._served_file.read_text()) if self._served_file.exists() else {}
        served[label] = entry
        write_json_atomic(self._served_file, served)

    def describe(self) -> dict[str, Any]:
        """The engine record of results.json (credential-free)."""
        if self.engine == "local":
            return {"engine": "local", "in_process": "every stage (recover_attacks LocalEngine)"}
        import json

        served = json.loads(self._served_file.read_text()) if self._served_file.exists() else {}
        return {
            "engine": "openai",
            "command": self.command,
            "prompts": self.prompts,
            "server_stages": ["evaluation (greedy)", *(f"attack:{a}" for a in SERVER_ATTACKS)],
            "in_process": {
                "unlearning": "trains the weights",
                "bbh": "in-process generation",
                "focus_on_key key-token search": "forward passes of theta_p",
                **{f"attack:{a}": why for a, why in IN_PROCESS_ATTACKS.items()},
            },
            "models": served,
        }

    # ------------------------------------------------------------------ generation
    def answer(self, engine: Any, questions: Sequence[str], config: Any) -> list[list[str]]:
        """Responses through the server, stripped like ``recover_attacks.generate``'s."""
        outputs = engine.answer(list(questions), config, progress=self.progress)
        return [[text.strip() for text in per_question] for per_question in outputs]

    def run_attack(
        self,
        attack: Any,
        model: Any,
        tokenizer: Any,
        targets: list[dict[str, Any]],
        *,
        original_model: Any,
        relearn_data: Sequence[Any] | None,
        context_facts: Mapping[str, Sequence[Any]] | None,
        progress: bool,
    ) -> list[Any]:
        """``attack.run(...)``, with the decoding of :data:`SERVER_ATTACKS` sent to the server."""
        engine = None
        if attack.name in SERVER_ATTACKS and targets:
            engine = self.engine_for(model, tokenizer)
        if engine is None:
            return attack.run(
                model,
                tokenizer,
                targets,
                original_model=original_model,
                relearn_data=relearn_data,
                context_facts=context_facts,
                progress=progress,
            )
        from recover_attacks.records import validate_questions

        validate_questions(targets, attack.required_fields)
        if attack.name == "probab":
            return self._probab(attack, engine, targets)
        return self._focus_on_key(attack, engine, tokenizer, targets, original_model)

    def _results(self, attack: Any, engine: Any, targets: list[dict[str, Any]], responses: list[list[str]]) -> list[Any]:  # fmt: skip
        from recover_attacks import AttackResult

        settings = attack.settings(engine=engine.describe())
        return [
            AttackResult(id=str(q["id"]), attack=attack.name, responses=r, settings=dict(settings))
            for q, r in zip(targets, responses, strict=True)
        ]

    def _probab(self, attack: Any, engine: Any, targets: list[dict[str, Any]]) -> list[Any]:
        """Probab's samples from the server: same temperature/top-p/top-k/n/seed as in-process
        (the texts differ from in-process samples: a server's random stream is its own)."""
        from recover_attacks.engine import DecodingConfig

        c = attack.config
        config = DecodingConfig(
            max_new_tokens=c.max_new_tokens,
            do_sample=True,
            temperature=c.temperature,
            top_p=c.top_p,
            top_k=c.top_k,
            num_samples=c.num_samples,
            seed=c.seed,
        )
        responses = self.answer(engine, [q["question"] for q in targets], config)
        return self._results(attack, engine, targets, responses)

    def _focus_on_key(
        self,
        attack: Any,
        engine: Any,
        tokenizer: Any,
        targets: list[dict[str, Any]],
        original_model: Any,
    ) -> list[Any]:
        """FocusOnKey: key words from theta_p in-process (recover-attacks' own functions), the
        greedy answer of the unlearned model through the server."""
        from recover_attacks.attacks.focus_on_key import (
            build_prompt,
            key_words,
            token_contributions,
        )
        from recover_attacks.engine import DecodingConfig
        from recover_attacks.errors import RecordError

        c = attack.config
        if original_model is None:
            raise RecordError("focus_on_key needs original_model (the pre-unlearning model)")
        was_training = original_model.training
        original_model.eval()
        prompts, keys_per_q, contribs_per_q = [], [], []
        try:
            for q in targets:
                contribs = token_contributions(
                    original_model, tokenizer, q["question"], q["answer"]
                )
                keys = key_words(q["question"], contribs, c.top_k)
                prompts.append(build_prompt(q["question"], keys, c))
                keys_per_q.append(keys)
                contribs_per_q.append([(t.text, round(t.contribution, 4)) for t in contribs])
        finally:
            original_model.train(was_training)
        config = DecodingConfig(max_new_tokens=c.max_new_tokens, seed=c.seed)
        results = self._results(attack, engine, targets, self.answer(engine, prompts, config))
        for r, keys, p, contribs in zip(results, keys_per_q, prompts, contribs_per_q, strict=True):
            r.settings.update(key_words=keys, prompt=p, token_contributions=contribs)
        return results
