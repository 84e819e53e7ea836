"""The files of an unlearned checkpoint (ARCHITECTURE.md section 8), by which a loader tells what
the checkpoint holds, next to the ``save_pretrained`` files (``config.json``, safetensors weights):

* :data:`RECORD_FILE`: the run record (JSON);
* :data:`PEFT_ADAPTER_CONFIG`: present when the checkpoint is an unmerged LoRA adapter (peft); its
  ``base_model_name_or_path`` names the base model the adapter goes on;
* :data:`AS_ADAPTER_FILE`: the Attention-Shifting adapters (safetensors), to re-attach after the
  model is loaded (a plain reload would give back the original model).

The library that writes checkpoints and the one that loads them to attack keep their own copy of
this module (the libraries never import each other); the copies are byte-identical, which
``tests/test_shared_copies.py`` at the repository root checks. How each writes or loads a
checkpoint stays its own code.
"""

from __future__ import annotations

__all__ = ["AS_ADAPTER_FILE", "PEFT_ADAPTER_CONFIG", "RECORD_FILE"]

RECORD_FILE = "unlearn_record.json"
PEFT_ADAPTER_CONFIG = "adapter_config.json"
AS_ADAPTER_FILE = "attention_shift_adapter.safetensors"
