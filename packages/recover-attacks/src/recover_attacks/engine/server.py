"""Start an OpenAI-compatible inference server from a command template, wait until it answers,
and stop it (with everything it started) afterwards.

    with ServerProcess("vllm serve {model} --port {port}", model="/models/unlearned-npo") as server:
        engine = OpenAIEngine(server.base_url, server.served_model, tokenizer=tokenizer)
        ...

The template's fields: ``{model}`` (shell-quoted), ``{port}`` (required: a free port is chosen
unless given), ``{host}``. Health is ``GET {health_path}`` returning 200 (``/v1/models`` answers
on vLLM, SGLang, llama.cpp's server, Ollama and :mod:`recover_attacks.serve`). The server runs in
its own process group; :meth:`stop` sends SIGTERM to the group, then SIGKILL after
``stop_timeout``. Its output goes to ``log_path`` (a temporary file by default), whose tail is
quoted in the error when the server exits or never becomes healthy.
"""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from .errors import ServerError


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """One inference server process (see the module docstring).

    Args:
        command: template such as ``"vllm serve {model} --port {port}"``.
        model: what ``{model}`` becomes (a local model directory, a GGUF file, a hub id).
        served_model: the name the server answers to (default: ``model``, as vLLM does).
        host / port: where it listens (``port=None``: a free port).
        health_path: path polled until it returns HTTP 200.
        startup_timeout: seconds to wait for health (large models load for minutes).
        stop_timeout: seconds between SIGTERM and SIGKILL.
        env: extra environment variables for the server.
        log_path: file for the server's stdout and stderr (default: a temporary file).
    """

    def __init__(
        self,
        command: str,
        *,
        model: str,
        served_model: str | None = None,
        host: str = "127.0.0.1",
        port: int | None = None,
        health_path: str = "/v1/models",
        startup_timeout: float = 600.0,
        stop_timeout: float = 30.0,
        env: Mapping[str, str] | None = None,
        log_path: str | os.PathLike[str] | None = None,
    ) -> None:
        if "{port}" not in command:
            raise ServerError(
                f"server command template {command!r} has no {{port}}: leakres must know where "
                "the server listens (e.g. 'vllm serve {model} --port {port}')"
            )
        self.command_template = command
        self.model = str(model)
        self.served_model = served_model or self.model
        self.host = host
        self.port = port or free_port(host)
        self.health_path = health_path
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.env = dict(env or {})
        self.log_path = Path(log_path) if log_path else None
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def argv(self) -> list[str]:
        text = self.command_template.format(
            model=shlex.quote(self.model), port=self.port, host=self.host
        )
        return shlex.split(text)

    def describe(self) -> dict[str, Any]:
        return {"command": self.command_template, "model": self.model, "base_url": self.base_url}

    def start(self) -> ServerProcess:
        if self._process is not None:
            raise ServerError(f"server {self.argv[0]!r} already started")
        if self.log_path is None:
            handle, name = tempfile.mkstemp(prefix="leakres-server-", suffix=".log")
            os.close(handle)
            self.log_path = Path(name)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self.env},
                start_new_session=True,  # its own process group: stop() ends its children too
            )
        except OSError as exc:
            self._log.close()
            raise ServerError(f"could not start server {self.argv!r}: {exc}") from exc
        try:
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.is_file():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def wait_healthy(self) -> None:
        url = f"http://{self.host}:{self.port}{self.health_path}"
        deadline = time.monotonic() + self.startup_timeout
        while True:
            assert self._process is not None
            code = self._process.poll()
            if code is not None:
                raise ServerError(
                    f"server {self.argv[0]!r} exited with status {code} before {url} answered; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                raise ServerError(
                    f"server {self.argv[0]!r} did not answer {url} within {self.startup_timeout:.0f} s; "
                    f"log {self.log_path}:\n{self.log_tail()}"
                )
            time.sleep(0.5)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:
                pass
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
