"""Which engine generates a model's answers: in-process, or an OpenAI-compatible server per model.

``--engine local`` (default) decodes in this process with recover-attacks' ``LocalEngine`` (through
``recover_attacks.generate``). ``--engine openai --engine-cmd 'vllm serve {model} --port {port}'``
starts one server per model with recover-attacks' ``ServerProcess``: the base model from its path,
each unlearned model after saving it to ``OUT/engine/models/METHOD`` as safetensors. Answers are
requested from ``/v1/completions`` with prompts formatted here by the model's own tokenizer
(ARCHITECTURE.md section 3; sent as token ids by default, so no server adds a second BOS), so the
server sees exactly what the in-process engine sees. One server runs at a time: switching to
another model stops the previous one, and :meth:`GenerationRouter.close` stops the last.

Which stages use the server: greedy evaluation (base and unlearned) and the decoding of every
attack that only decodes (``Attack.changes_weights`` False: probab, focus_on_key, in_context and
any plugin written the same way); the router injects the engine into ``Attack.run`` and knows no
attack by name. Attacks that change the weights (quantization re-quantizes them, relearn trains
on them) decode their new weights in-process; so does a model a plain safetensors server cannot
reproduce (one with forward hooks, e.g. Attention-Shifting adapters, or an unmerged peft adapter).
Unlearning, FocusOnKey's key-token search on theta_p and BBH also run in-process.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.scale.store import write_json_atomic

ENGINES = ("local", "openai")
PROMPT_MODES = ("ids", "text")


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


def _attacks() -> list[tuple[str, bool]]:
    """Each registered attack and whether it changes the weights (the attack says; the router
    injects the engine into every other one)."""
    from recover_attacks import available_attacks, get_attack_class

    return [(name, get_attack_class(name).changes_weights) for name in available_attacks()]


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
            "server_stages": [
                "evaluation (greedy)",
                *(f"attack:{a}" for a, changes in _attacks() if not changes),
            ],
            "in_process": {
                "unlearning": "trains the weights",
                "bbh": "in-process generation",
                "focus_on_key key-token search": "forward passes of theta_p",
                **{
                    f"attack:{a}": "changes the unlearned weights, decodes them in-process"
                    for a, changes in _attacks()
                    if changes
                },
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
        """``attack.run(...)`` with this run's engine for ``model`` injected: every attack that
        only decodes (``changes_weights`` False) decodes through the server with ``--engine
        openai``; one that changes the weights, or a model no server can run, decodes in-process."""
        engine = None
        if targets and not attack.changes_weights:
            engine = self.engine_for(model, tokenizer)
        return attack.run(
            model,
            tokenizer,
            targets,
            original_model=original_model,
            relearn_data=relearn_data,
            context_facts=context_facts,
            progress=progress,
            engine=engine,
        )
