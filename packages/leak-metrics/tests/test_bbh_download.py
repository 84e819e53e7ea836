"""BBH download rules: pinned commit, sha256 per file, size cap, atomic cache write, a cached file
with the wrong hash fetched again; and model loading only from safetensors.

The "remote" is a stdlib ``http.server`` on 127.0.0.1 started by the test, serving small fixture
files in the real BBH format; ``truncate`` makes it declare the full Content-Length but send only
half the body and close the connection (a cut transfer).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import is_slice
from leak_metrics.bbh import (
    BBH_COMMIT,
    BBH_TASKS,
    REMOTE_BASE,
    BBHDownloadError,
    fetch_verified,
    load_model,
)
from leak_metrics.bbh.checksums import SHA256
from leak_metrics.bbh.data import _read_or_fetch

# Files the shipped slice (tests/data/bbh) copies whole, byte for byte: their pinned hashes hold.
SLICE_WHOLE_FILES = (
    "bbh/boolean_expressions.json",
    "cot-prompts/boolean_expressions.txt",
    "cot-prompts/sports_understanding.txt",
    "cot-prompts/web_of_lies.txt",
)

EXAMPLES = json.dumps({"examples": [{"input": "not ( True ) is", "target": "False"}]}).encode()
PROMPT = (
    b"canary line\n-----\nEvaluate.\n\nQ: x\nA: Let's think step by step. So the answer is y.\n"
)
FILES = {"bbh/navigate.json": EXAMPLES, "cot-prompts/navigate.txt": PROMPT}
PINNED = {name: hashlib.sha256(body).hexdigest() for name, body in FILES.items()}


class FileServer:
    def __init__(self) -> None:
        self.truncate = False
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                name = self.path.lstrip("/")
                server.hits.append(name)
                body = FILES.get(name)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if server.truncate else body)
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def remote() -> Iterator[FileServer]:
    srv = FileServer()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def leftovers(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*") if p.name.endswith(".part")]


def test_downloads_are_pinned_to_a_commit_with_a_hash_per_file() -> None:
    assert re.fullmatch(r"[0-9a-f]{40}", BBH_COMMIT)
    assert REMOTE_BASE.endswith(f"/suzgunmirac/BIG-Bench-Hard/{BBH_COMMIT}")
    expected = {f"bbh/{t}.json" for t in BBH_TASKS} | {f"cot-prompts/{t}.txt" for t in BBH_TASKS}
    assert set(SHA256) == expected
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in SHA256.values())


def test_pinned_hashes_match_the_staged_copy(bbh_dir: Path) -> None:
    root = bbh_dir  # the staged copy (skips, by name, when the data is absent)
    assert BBH_COMMIT in (root / "SOURCE.md").read_text(encoding="utf-8")
    checked = 0
    for relative, pinned in SHA256.items():
        if is_slice(root) and relative not in SLICE_WHOLE_FILES:
            continue  # the slice keeps 5 examples of the other tasks: no longer the pinned bytes
        assert hashlib.sha256((root / relative).read_bytes()).hexdigest() == pinned, relative
        checked += 1
    assert checked == (len(SHA256) if not is_slice(root) else len(SLICE_WHOLE_FILES))


def test_verified_download_is_written_atomically(remote: FileServer, tmp_path: Path) -> None:
    dest = tmp_path / "bbh" / "navigate.json"
    fetch_verified(f"{remote.base}/bbh/navigate.json", dest, PINNED["bbh/navigate.json"])
    assert dest.read_bytes() == EXAMPLES
    assert leftovers(tmp_path) == []


def test_truncated_download_is_refused_and_nothing_is_cached(
    remote: FileServer, tmp_path: Path
) -> None:
    remote.truncate = True
    dest = tmp_path / "bbh" / "navigate.json"
    with pytest.raises(
        BBHDownloadError,
        match=r"bbh/navigate.json: truncated download \(31 of 63 bytes\); not cached",
    ):
        fetch_verified(f"{remote.base}/bbh/navigate.json", dest, PINNED["bbh/navigate.json"])
    assert not dest.exists() and leftovers(tmp_path) == []


def test_wrong_hash_is_refused_and_the_old_file_kept(remote: FileServer, tmp_path: Path) -> None:
    dest = tmp_path / "navigate.json"
    dest.write_bytes(b"previous content")
    with pytest.raises(BBHDownloadError, match=r"sha256 [0-9a-f]{64} of \d+ bytes != pinned 0{64}"):
        fetch_verified(f"{remote.base}/bbh/navigate.json", dest, "0" * 64)
    assert dest.read_bytes() == b"previous content" and leftovers(tmp_path) == []


def test_size_cap(remote: FileServer, tmp_path: Path) -> None:
    dest = tmp_path / "navigate.json"
    with pytest.raises(BBHDownloadError, match="over the 10-byte cap"):
        fetch_verified(
            f"{remote.base}/bbh/navigate.json", dest, PINNED["bbh/navigate.json"], max_bytes=10
        )
    assert not dest.exists() and leftovers(tmp_path) == []


def test_missing_remote_file_is_a_download_error(remote: FileServer, tmp_path: Path) -> None:
    with pytest.raises(BBHDownloadError, match="HTTPError"):
        fetch_verified(f"{remote.base}/bbh/nope.json", tmp_path / "x.json", "0" * 64)


def test_cached_file_with_wrong_hash_is_fetched_again(
    remote: FileServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"

    def read() -> str:
        return _read_or_fetch(
            "bbh/navigate.json", None, "remote", cache, remote_base=remote.base, checksums=PINNED
        )

    assert read() == EXAMPLES.decode()
    assert remote.hits == ["bbh/navigate.json"]
    assert read() == EXAMPLES.decode()  # verified cache hit: no request
    assert len(remote.hits) == 1
    (cache / "bbh" / "navigate.json").write_text('{"examples": []}')  # tampered / stale copy
    with caplog.at_level(logging.WARNING, logger="leak_metrics.bbh.data"):
        assert read() == EXAMPLES.decode()
    assert len(remote.hits) == 2 and "not the pinned one; fetching again" in caplog.text
    with pytest.raises(BBHDownloadError, match="no pinned sha256"):
        _read_or_fetch(
            "bbh/other.json", None, "remote", cache, remote_base=remote.base, checksums=PINNED
        )


def tiny_checkpoint(directory: Path, *, safetensors: bool) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "[PAD]": 1, "a": 2, "b": 3}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]"
    )
    tokenizer.save_pretrained(directory)
    config = LlamaConfig(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=1,
    )  # fmt: skip
    model = LlamaForCausalLM(config)
    if safetensors:
        model.save_pretrained(directory)
    else:  # an old-style pickle checkpoint (transformers 5 no longer writes one itself)
        import torch

        config.save_pretrained(directory)
        torch.save(model.state_dict(), directory / "pytorch_model.bin")
    return directory


def test_load_model_takes_safetensors_and_refuses_pickles(tmp_path: Path) -> None:
    good = tiny_checkpoint(tmp_path / "safe", safetensors=True)
    model, _ = load_model(good)
    assert model.config.hidden_size == 16
    pickled = tiny_checkpoint(tmp_path / "pickled", safetensors=False)
    assert (pickled / "pytorch_model.bin").is_file() and not list(pickled.glob("*.safetensors"))
    with pytest.raises(OSError, match="safetensors"):
        load_model(pickled)
