"""`leakres run --save-models --push-to-hub REPO` against a local stand-in for the Hub.

The Hugging Face Hub is not reachable from the test machines (and a test must not publish), so
``huggingface_hub.HfApi`` is replaced by a recorder that keeps every call. Checked here: the
refusals before any work (no --save-models, offline, no token, a bad repository id: nothing is
created or sent), and what :func:`leakres_cli.outputs.hub.push_models` sends (a private model repository,
one upload per models folder, the token from huggingface_hub's rules and never printed). The push
after a real run is in test_eval_byom.py (the run there saves its models)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import huggingface_hub
import pytest
from click.testing import CliRunner
from leakres_cli.main import cli
from leakres_cli.outputs.hub import push_models

SECRET = "hf_standin_secret_token_456"


class RecordingHfApi:
    """Stands in for ``huggingface_hub.HfApi``: records the calls, sends nothing."""

    calls: ClassVar[list[tuple[str, dict]]] = []

    def __init__(self, token: str | None = None, **kwargs) -> None:
        self.calls.append(("init", {"token": token}))

    def create_repo(self, repo_id: str, **kwargs) -> str:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))
        return f"https://huggingface.co/{repo_id}"

    def upload_folder(self, **kwargs) -> None:
        folder = Path(kwargs["folder_path"])
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        self.calls.append(("upload_folder", {**kwargs, "files": files}))


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> type[RecordingHfApi]:
    RecordingHfApi.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingHfApi)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    return RecordingHfApi


def test_refused_before_any_work(tmp_path: Path, hub, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    base = ["run", "--out", str(out), "--push-to-hub"]
    cases = [
        ([*base, "org/models"], "--push-to-hub uploads the saved models: add --save-models"),
        ([*base, "not a repo/x y", "--save-models"], "not a Hub repository id"),
    ]
    for args, message in cases:
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2 and message in result.output, result.output
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(cli, [*base, "org/models", "--save-models"])
    assert result.exit_code == 2 and "HF_HUB_OFFLINE is set" in result.output
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    result = CliRunner().invoke(cli, [*base, "org/models", "--save-models"])
    assert result.exit_code == 2 and "needs a Hugging Face token" in result.output
    assert hub.calls == [] and not out.exists()


def test_push_models_sends_each_folder_to_a_private_model_repo(tmp_path: Path, hub) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "models" / "ga").mkdir(parents=True)
        (tmp_path / name / "models" / "ga" / "model.safetensors").write_bytes(b"x")
        (tmp_path / name / "models" / "forget.jsonl").write_text("{}\n")
    folders = {"a": tmp_path / "a" / "models", "b": tmp_path / "b" / "models"}
    url = push_models(folders, "org/unlearned", SECRET)
    assert url == "https://huggingface.co/org/unlearned"
    assert [n for n, _ in hub.calls] == ["init", "create_repo", "upload_folder", "upload_folder"]
    assert hub.calls[0][1] == {"token": SECRET}
    assert hub.calls[1][1] == {"repo_id": "org/unlearned", "repo_type": "model", "private": True,
                               "exist_ok": True}  # fmt: skip
    uploads = [kw for n, kw in hub.calls if n == "upload_folder"]
    assert [u["path_in_repo"] for u in uploads] == ["a", "b"]
    assert uploads[0]["files"] == ["forget.jsonl", "ga/model.safetensors"]
