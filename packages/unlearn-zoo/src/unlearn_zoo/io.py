"""Loading what :meth:`Unlearner.unlearn` saved into ``output_dir``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from unlearn_zoo.base import RECORD_NAME


def load_record(output_dir: str | Path) -> dict[str, Any]:
    return json.loads((Path(output_dir) / RECORD_NAME).read_text())


def load_unlearned(
    output_dir: str | Path, base_model: str | Path | None = None, **from_pretrained_kwargs: Any
) -> Any:
    """``AutoModelForCausalLM.from_pretrained`` plus what plain transformers cannot restore:
    the AS adapters (``attention_shift_adapter.safetensors``) and a non-merged peft adapter
    (loaded on ``base_model``, default: the base path recorded in ``adapter_config.json``)."""
    from transformers import AutoModelForCausalLM

    from unlearn_zoo.methods.attention_shift import ADAPTER_FILE, load_adapters

    path = Path(output_dir)
    if (path / "adapter_config.json").exists():
        from peft import PeftConfig, PeftModel

        base_path = base_model or PeftConfig.from_pretrained(path).base_model_name_or_path
        base = AutoModelForCausalLM.from_pretrained(base_path, **from_pretrained_kwargs)
        return PeftModel.from_pretrained(base, path)
    model = AutoModelForCausalLM.from_pretrained(path, **from_pretrained_kwargs)
    if (path / ADAPTER_FILE).exists():
        model.set_attn_implementation("eager")
        load_adapters(model, path)
    return model
