"""The LLM judge's backend over a chat model in memory (:meth:`LLMJudge.from_transformers`)."""

from __future__ import annotations

import threading
from typing import Any

from leak_metrics._optional import require
from leak_metrics.redact import redact


class TransformersChatBackend:
    """A local chat model (extra ``local``), greedy decoding; one request at a time because the
    model is not thread-safe, so ``LLMJudge`` serialises calls through a lock."""

    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int = 96) -> None:
        require("torch", "local", "the local LLM judge")
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.model_name = str(getattr(model.config, "_name_or_path", "") or type(model).__name__)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TransformersChatBackend(model={self.model_name!r})"

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "transformers",
            "model": self.model_name,
            "max_new_tokens": self.max_new_tokens,
        }

    def redact(self, text: str) -> str:
        return redact(text)

    def check(self) -> None:
        """A model in memory is always reachable."""

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, int]]:
        import torch

        if getattr(self.tokenizer, "chat_template", None):
            prompt = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        else:
            prompt = "\n\n".join(m["content"] for m in messages) + "\n"
        with self._lock, torch.no_grad():
            encoded = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
            output = self.model.generate(
                **encoded,
                do_sample=False,
                max_new_tokens=self.max_new_tokens,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            )
        new_tokens = output[0, encoded["input_ids"].shape[1] :]
        text = self.tokenizer.decode(new_tokens, skip_special_tokens=True)
        usage = {
            "prompt_tokens": int(encoded["input_ids"].shape[1]),
            "completion_tokens": int(new_tokens.shape[0]),
        }
        return text, usage
