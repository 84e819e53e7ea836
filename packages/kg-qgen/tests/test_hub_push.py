"""``kg-qgen export --format hf --push-to-hub REPO`` against a local stand-in for the Hub.

The Hugging Face Hub is not reachable from the test machines (and a test must not publish), so
``huggingface_hub.HfApi`` is replaced by a recorder that keeps every call: the test checks what
would be sent (the repository, its type, the exported folder with its card) and that the token
comes from huggingface_hub's own rules ($HF_TOKEN here), is handed to the client only and never
printed; without a token, or offline, nothing is written or sent."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import huggingface_hub
import pytest
from kg_qgen.cli import main
from kg_qgen.pipeline import build, save
from kg_qgen.sources.builtin import load_builtin

SECRET = "hf_standin_secret_token_123"


class RecordingHfApi:
    """Stands in for ``huggingface_hub.HfApi``: records the calls, sends nothing."""

    calls: ClassVar[list[tuple[str, dict]]] = []

    def __init__(self, token: str | None = None, **kwargs) -> None:
        self.calls.append(("init", {"token": token, **kwargs}))

    def create_repo(self, repo_id: str, **kwargs) -> str:
        self.calls.append(("create_repo", {"repo_id": repo_id, **kwargs}))
        return f"https://huggingface.co/datasets/{repo_id}"

    def upload_folder(self, **kwargs) -> None:
        folder = Path(kwargs["folder_path"])
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        self.calls.append(("upload_folder", {**kwargs, "files": files}))


@pytest.fixture
def built_set(tmp_path: Path) -> Path:
    out = tmp_path / "set"
    save(build(load_builtin(), per_type=2, seed=0), out, meta={"source": {"name": "builtin"}})
    return out


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> type[RecordingHfApi]:
    RecordingHfApi.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingHfApi)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_TOKEN", SECRET)
    return RecordingHfApi


def test_push_uploads_the_export_with_its_card(
    built_set: Path, tmp_path: Path, hub, capsys
) -> None:
    out = tmp_path / "hf"
    main(["export", str(built_set), "--format", "hf", str(out), "--push-to-hub", "org/kgqgen-set"])
    names = [name for name, _ in hub.calls]
    assert names == ["init", "create_repo", "upload_folder"]
    assert hub.calls[0][1]["token"] == SECRET  # huggingface_hub's token, handed to the client
    create, upload = hub.calls[1][1], hub.calls[2][1]
    assert create == {"repo_id": "org/kgqgen-set", "repo_type": "dataset", "private": False,
                      "exist_ok": True}  # fmt: skip
    assert upload["repo_id"] == "org/kgqgen-set" and upload["repo_type"] == "dataset"
    assert Path(upload["folder_path"]) == out
    assert "README.md" in upload["files"] and "SH/data-00000-of-00001.arrow" in upload["files"]
    printed = capsys.readouterr()
    assert "pushed" in printed.out and SECRET not in printed.out + printed.err


def test_no_token_or_offline_refuses_before_writing(
    built_set: Path, tmp_path: Path, hub, monkeypatch, capsys
) -> None:
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "export",
                str(built_set),
                "--format",
                "hf",
                str(tmp_path / "a"),
                "--push-to-hub",
                "org/x",
            ]
        )
    assert exc.value.code == 2 and "needs a Hugging Face token" in capsys.readouterr().err
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SystemExit):
        main(
            [
                "export",
                str(built_set),
                "--format",
                "hf",
                str(tmp_path / "b"),
                "--push-to-hub",
                "org/x",
            ]
        )
    assert "HF_HUB_OFFLINE is set" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(
            [
                "export",
                str(built_set),
                "--format",
                "lm-eval",
                str(tmp_path / "c"),
                "--push-to-hub",
                "org/x",
            ]
        )
    assert "it needs --format hf" in capsys.readouterr().err
    assert hub.calls == [] and not any((tmp_path / n).exists() for n in "abc")
