"""Push an exported question set to the Hugging Face Hub (``kg-qgen export --format hf --push-to-hub``).

:func:`push_folder` uploads the export folder as it is, its dataset card ``README.md`` included:
the card's YAML header names one config per type over the folder's Arrow files (and the fact
files), so ``datasets.load_dataset(REPO, "MT")`` reads the Hub repository exactly as it reads the
folder (tests/test_export.py loads the folder that way). ``DatasetDict.push_to_hub`` would rewrite
the splits as Parquet with a config list of its own, which the per-type configs cannot share.

Token rules: the token is huggingface_hub's own (``$HF_TOKEN`` or ``huggingface-cli login``),
passed to nothing else and never printed; with none, or with ``HF_HUB_OFFLINE`` set, the push is
refused in one line before any request.
"""

from __future__ import annotations

import os
from pathlib import Path

from kg_qgen.errors import KgQgenInputError


def hub_token() -> str:
    """huggingface_hub's token, or a one-line KgQgenInputError saying how to give one."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise KgQgenInputError("--push-to-hub needs the Hub, and HF_HUB_OFFLINE is set")
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise KgQgenInputError(
            "--push-to-hub needs a Hugging Face token: set HF_TOKEN or run `huggingface-cli login`"
        )
    return token


def push_folder(
    folder: str | Path, repo_id: str, *, repo_type: str = "dataset", private: bool = False
) -> str:
    """Create ``repo_id`` if needed and upload ``folder`` to it; returns the repository's URL."""
    from huggingface_hub import HfApi
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise KgQgenInputError(
            f"--push-to-hub {repo_id!r}: not a Hub repository id ({exc})"
        ) from None
    api = HfApi(token=hub_token())
    url = api.create_repo(repo_id, repo_type=repo_type, private=private, exist_ok=True)
    api.upload_folder(
        folder_path=str(folder),
        repo_id=repo_id,
        repo_type=repo_type,
        commit_message=f"kg-qgen export of {Path(folder).name}",
    )
    return str(url)
