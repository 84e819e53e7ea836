"""`leakres run --save-models --push-to-hub REPO`: the saved models to a Hugging Face model repository.

What a run saved under ``OUT/models`` (one folder per method, each loadable with
``from_pretrained(REPO, subfolder=METHOD)``, and the forget/retain facts and questions that
`leakres eval` needs to reproduce the run) is uploaded as it is; a multi-model grid puts each
model's folder under its run directory's name. Token rules: huggingface_hub's own token
(``$HF_TOKEN`` or ``huggingface-cli login``), handed to its client only and never printed or
written; without one, or with ``HF_HUB_OFFLINE`` set, :func:`check_push` refuses before any work.
"""

from __future__ import annotations

import os
from pathlib import Path

from leakres_cli.errors import LeakresError


def check_push(repo_id: str, save_models: bool) -> str:
    """The token to push with, or a one-line LeakresError (no --save-models, a bad repository id,
    offline, no token) before any work."""
    if not save_models:
        raise LeakresError("--push-to-hub uploads the saved models: add --save-models")
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise LeakresError(f"--push-to-hub {repo_id!r}: not a Hub repository id ({exc})") from None
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        raise LeakresError("--push-to-hub needs the Hub, and HF_HUB_OFFLINE is set")
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise LeakresError(
            "--push-to-hub needs a Hugging Face token: set HF_TOKEN or run `huggingface-cli login`"
        )
    return token


def push_models(folders: dict[str, Path], repo_id: str, token: str) -> str:
    """Upload each ``{path in repo: models folder}`` to the model repository ``repo_id`` (created
    when missing, private); returns its URL. A Hub error is one line."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    try:
        url = api.create_repo(repo_id, repo_type="model", private=True, exist_ok=True)
        for in_repo, folder in folders.items():
            api.upload_folder(
                folder_path=str(folder),
                path_in_repo=in_repo or None,
                repo_id=repo_id,
                repo_type="model",
                commit_message=f"leakres run --save-models: {in_repo or folder.parent.name}",
            )
    except OSError as exc:  # requests' and huggingface_hub's HTTP errors are OSErrors
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise LeakresError(f"--push-to-hub {repo_id}: {first}") from None
    return str(url)
