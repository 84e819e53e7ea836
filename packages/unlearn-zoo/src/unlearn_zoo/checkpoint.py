"""Writing an unlearned checkpoint (ARCHITECTURE.md section 8); :mod:`unlearn_zoo.io` reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from torch import nn

from unlearn_zoo.checkpoint_files import RECORD_FILE


def save_unlearned(
    unlearner: Any, model: nn.Module, tokenizer: Any, record: dict[str, Any], out: Path
) -> None:
    """Write the checkpoint (safetensors, or the peft adapter), tokenizer and the run record;
    ``unlearner`` (an :class:`~unlearn_zoo.base.Unlearner`) adds its extra files."""
    out.mkdir(parents=True, exist_ok=True)
    hf_quantizer = getattr(model, "hf_quantizer", None)
    if hf_quantizer is not None:  # GGUF-loaded models carry a quantizer; the weights are float.
        hf_quantizer.remove_quantization_config(model)
    model.save_pretrained(out, safe_serialization=True)
    if tokenizer is not None:
        tokenizer.save_pretrained(out)
    unlearner.save_extra(model, out)
    (out / RECORD_FILE).write_text(json.dumps(record, indent=2))
