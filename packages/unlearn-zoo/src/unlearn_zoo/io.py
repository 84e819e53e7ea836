"""Loading what :meth:`Unlearner.unlearn` saved into ``output_dir`` (ARCHITECTURE.md section 8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from unlearn_zoo.checkpoint_files import AS_ADAPTER_FILE, PEFT_ADAPTER_CONFIG, RECORD_FILE


def load_record(output_dir: str | Path) -> dict[str, Any]:
    return json.loads((Path(output_dir) / RECORD_FILE).read_text())


def load_unlearned(
    output_dir: str | Path, base_model: str | Path | None = None, **from_pretrained_kwargs: Any
) -> Any:
    """``AutoModelForCausalLM.from_pretrained`` plus what plain transformers cannot restore:

    1. ``adapter_config.json``: an unmerged LoRA adapter, loaded with ``PeftModel.from_pretrained``
       on ``base_model`` (default: ``base_model_name_or_path`` recorded in that file);
    2. otherwise the safetensors weights of the directory;
    3. ``attention_shift_adapter.safetensors``: eager attention and the AS adapters re-attached.

    Weights load from safetensors only; remote code is never trusted. recover-attacks'
    ``load_model`` implements the same rules (the libraries never import each other)."""
    from transformers import AutoModelForCausalLM

    from unlearn_zoo.methods.attention_shift import load_adapters

    kwargs = {"use_safetensors": True, **from_pretrained_kwargs}
    path = Path(output_dir)
    if (path / PEFT_ADAPTER_CONFIG).exists():
        from peft import PeftConfig, PeftModel

        base_path = base_model or PeftConfig.from_pretrained(path).base_model_name_or_path
        base = AutoModelForCausalLM.from_pretrained(base_path, **kwargs)
        model = PeftModel.from_pretrained(base, path)
    else:
        model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    if (path / AS_ADAPTER_FILE).exists():
        model.set_attn_implementation("eager")
        load_adapters(model, path)
    return model
