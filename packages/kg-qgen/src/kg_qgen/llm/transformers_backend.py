"""Local Hugging Face model backend: chat-template prompts, batched greedy decoding.

``model_name_or_path`` is a hub id, a local safetensors directory, or a ``.gguf`` file (or pass
the directory plus ``gguf_file=``); GGUF weights are dequantized to float32 by transformers.
torch and transformers are imported lazily (the ``local`` extra). ``response_format_json`` cannot
be enforced locally; the prompts ask for JSON and the callers parse defensively.

Decoding: a caller's ``generate_fn(prompts, max_new_tokens, stop) -> texts`` when given (leakres'
CLI passes its generation engine; kg-qgen never imports it), else the stand-alone fallback, a
plain loop of length-sorted, left-padded ``model.generate`` batches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg_qgen.llm.backend import Messages

__all__ = ["GenerateFn", "TransformersBackend"]

#: One greedy continuation per formatted prompt, in order, cut before the first stop string.
GenerateFn = Callable[[list[str], int, list[str]], list[str]]


class TransformersBackend:
    """Batched generation with a local causal LM.

    Args:
        model_name_or_path: hub id, model directory, or path to a ``.gguf`` file.
        batch_size: prompts per ``generate`` call (default 16).
        gguf_file: GGUF file name inside ``model_name_or_path`` (a directory or hub repo).
        device: ``"cpu"``, ``"cuda"``...; default: CUDA when available, else CPU.
        seed: torch seed for sampling when ``temperature > 0`` (greedy ignores it).
        show_progress: tqdm bar over batches (default True).
        generate_fn: decode greedy requests with this callable instead of the built-in loop
            (the model is then not loaded; only the tokenizer, for the chat template).
            Requests with ``temperature > 0`` need the built-in loop and raise ``ValueError``.
    """

    backend_id = "transformers"

    def __init__(
        self,
        model_name_or_path: str | Path,
        batch_size: int = 16,
        gguf_file: str | None = None,
        device: str | None = None,
        seed: int = 0,
        show_progress: bool = True,
        generate_fn: GenerateFn | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(
                "TransformersBackend needs torch and transformers: pip install 'kg-qgen[local]'"
            ) from err
        path = str(model_name_or_path)
        if gguf_file is None and path.endswith(".gguf"):
            path, gguf_file = str(Path(path).parent), Path(path).name
        self.model = f"{path}/{gguf_file}" if gguf_file else path
        self.batch_size = batch_size
        self.seed = seed
        self.show_progress = show_progress
        self._torch = torch
        # weights only from safetensors (GGUF is a non-pickle format too); no repository code runs
        kw: dict[str, Any] = {"trust_remote_code": False}
        if gguf_file:
            kw["gguf_file"] = gguf_file
        self.tokenizer = AutoTokenizer.from_pretrained(path, **kw)
        self.tokenizer.padding_side = "left"  # generation continues from the right edge
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.generate_fn = generate_fn
        self.hf_model: Any = None
        if generate_fn is None:
            self.hf_model = AutoModelForCausalLM.from_pretrained(
                path, dtype=torch.float32, use_safetensors=True, **kw
            )
            self.hf_model.to(self.device).eval()

    def __repr__(self) -> str:
        return f"TransformersBackend(model={self.model!r}, batch_size={self.batch_size})"

    def describe(self) -> dict[str, Any]:
        decoding = "caller generate_fn" if self.generate_fn else "built-in batched greedy loop"
        return {
            "backend": "transformers",
            "model": self.model,
            "batch_size": self.batch_size,
            "decoding": decoding,
        }

    def settings(self) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe` (the run metadata every family reports)."""
        return self.describe()

    def format_prompt(self, messages: Messages) -> str:
        """The chat-template text of a conversation (plain fallback when there is no template)."""
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        lines = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        return "\n".join([*lines, "Assistant:"])

    def complete_many(
        self,
        prompts: list[Messages],
        *,
        temperature: float = 0.0,
        max_tokens: int = 512,
        response_format_json: bool = True,
    ) -> list[str]:
        torch = self._torch
        texts = [self.format_prompt(m) for m in prompts]
        if self.generate_fn is not None:
            if temperature > 0:
                raise ValueError(
                    "TransformersBackend: generate_fn decodes greedily; temperature > 0 needs the "
                    "built-in loop (create the backend without generate_fn)"
                )
            out = list(self.generate_fn(texts, max_tokens, []))
            if len(out) != len(texts):
                raise ValueError(f"generate_fn returned {len(out)} texts for {len(texts)} prompts")
            return [t.strip() for t in out]
        # Length-sorted batches waste less compute on padding; results go back in input order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[str] = [""] * len(texts)
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if self.show_progress and len(batches) > 1:
            from tqdm.auto import tqdm

            batches = tqdm(batches, desc="llm generate", unit="batch")
        gen_kw: dict[str, Any] = {"max_new_tokens": max_tokens}
        if temperature > 0:
            torch.manual_seed(self.seed)
            gen_kw.update(do_sample=True, temperature=temperature)
        else:
            gen_kw.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        for idx in batches:
            enc = self.tokenizer(
                [texts[i] for i in idx],
                return_tensors="pt",
                padding=True,
                add_special_tokens=False,  # the chat template already has them
            ).to(self.device)
            with torch.no_grad():
                gen = self.hf_model.generate(
                    **enc, pad_token_id=self.tokenizer.pad_token_id, **gen_kw
                )
            new = gen[:, enc["input_ids"].shape[1] :]
            for i, text in zip(
                idx, self.tokenizer.batch_decode(new, skip_special_tokens=True), strict=True
            ):
                out[i] = text.strip()
        return out
