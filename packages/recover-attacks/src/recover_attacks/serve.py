"""A minimal OpenAI-compatible completions server over transformers and :class:`LocalEngine`.

    python -m recover_attacks.serve --model DIR [--port 8000] [--host 127.0.0.1]

This is leakres' own small server, NOT vLLM or llama.cpp: it exists so that ``--engine openai``
can be exercised end to end on a machine without a GPU inference server (the tests start it on
127.0.0.1), and it serves one model in-process with the same continuous-batching engine as the
in-process path. For real scale, start vLLM/SGLang/llama.cpp instead; the client side is the same.

Endpoints: ``GET /health``, ``GET /v1/models``, ``POST /v1/completions`` (``prompt`` as a string,
a list of strings, a list of token ids or a list of lists of ids; ``max_tokens`` (default 16),
``temperature`` (default 1; 0 = greedy), ``top_p``, ``top_k``, ``n``, ``stop``, ``seed``). No
streaming, logprobs or chat endpoint. Concurrent requests are gathered for ``--batch-window``
seconds and decoded together (requests with the same decoding settings share one engine call).
"""

from __future__ import annotations

import argparse
import json
import queue
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .engine.config import DecodingConfig
from .engine.errors import EngineError
from .engine.local import LocalEngine


class BadRequest(ValueError):
    """A request the server rejects with HTTP 400 (the message names the field)."""


@dataclass
class _Job:
    prompts: list[list[int]]
    keys: list[str]
    config: DecodingConfig
    seed: int
    done: threading.Event = field(default_factory=threading.Event)
    texts: list[list[str]] = field(default_factory=list)
    reasons: list[list[str]] = field(default_factory=list)
    tokens: tuple[int, int] = (0, 0)
    error: str | None = None


def parse_request(body: Any, tokenizer: Any, add_special_tokens: bool) -> _Job:
    """The OpenAI ``/v1/completions`` request ``body`` as prompts (token ids) and a config."""
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    prompt = body.get("prompt")
    if isinstance(prompt, str) or (
        isinstance(prompt, list) and prompt and all(isinstance(t, int) for t in prompt)
    ):
        prompt = [prompt]
    if not isinstance(prompt, list) or not prompt:
        raise BadRequest("'prompt' must be a string, a list of strings or of token id lists")
    ids: list[list[int]] = []
    keys: list[str] = []
    for i, p in enumerate(prompt):
        if isinstance(p, str):
            ids.append(list(tokenizer(p, add_special_tokens=add_special_tokens)["input_ids"]))
            keys.append(p)
        elif isinstance(p, list) and p and all(isinstance(t, int) for t in p):
            ids.append([int(t) for t in p])
            keys.append(tokenizer.decode(p))
        else:
            raise BadRequest(f"'prompt'[{i}] must be a string or a non-empty list of token ids")
    temperature = float(body.get("temperature", 1.0))
    stop = body.get("stop") or []
    stop = [stop] if isinstance(stop, str) else list(stop)
    seed = int(body.get("seed") or 0)
    try:
        config = DecodingConfig(
            max_new_tokens=int(body.get("max_tokens") or 16),
            do_sample=temperature > 0,
            temperature=temperature if temperature > 0 else 1.0,
            top_p=float(body.get("top_p", 1.0)),
            top_k=int(body.get("top_k", 0) or 0),
            num_samples=int(body.get("n") or 1),
            seed=0,  # per request: passed to the engine as its own seed
            stop=tuple(stop),
        )
    except (EngineError, TypeError, ValueError) as exc:
        raise BadRequest(str(exc)) from exc
    return _Job(ids, keys, config, seed)


class Batcher:
    """One worker thread: gathers jobs for ``window`` seconds, decodes jobs with equal settings
    in one engine call (each prompt keeps its request's seed), answers each job."""

    def __init__(self, engine: LocalEngine, window: float) -> None:
        self.engine = engine
        self.window = window
        self.jobs: queue.Queue[_Job] = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="batcher", daemon=True)
        self.thread.start()

    def submit(self, job: _Job) -> _Job:
        self.jobs.put(job)
        job.done.wait()
        return job

    def _loop(self) -> None:
        while True:
            jobs = [self.jobs.get()]
            deadline = time.monotonic() + self.window
            while (left := deadline - time.monotonic()) > 0:
                try:
                    jobs.append(self.jobs.get(timeout=left))
                except queue.Empty:
                    break
            groups: dict[DecodingConfig, list[_Job]] = {}
            for job in jobs:
                groups.setdefault(job.config, []).append(job)
            for config, members in groups.items():
                self._run(config, members)

    def _run(self, config: DecodingConfig, jobs: Sequence[_Job]) -> None:
        ids = [p for job in jobs for p in job.prompts]
        keys = [k for job in jobs for k in job.keys]
        seeds = [job.seed for job in jobs for _ in job.prompts]
        try:
            texts = self.engine.complete_ids(ids, config, seeds=seeds, seed_keys=keys)
            reasons = self.engine.last_finish_reasons
        except Exception as exc:  # answered as HTTP 500 to each request of the group
            for job in jobs:
                job.error = f"{type(exc).__name__}: {exc}"
                job.done.set()
            return
        token_ids = self.engine.last_token_ids
        start = 0
        for job in jobs:
            end = start + len(job.prompts)
            job.texts, job.reasons = texts[start:end], reasons[start:end]
            prompt_tokens = sum(len(p) for p in job.prompts)
            completion_tokens = sum(len(t) for per in token_ids[start:end] for t in per)
            job.tokens = (prompt_tokens, completion_tokens)
            start = end
            job.done.set()


def make_handler(engine: LocalEngine, batcher: Batcher, served_name: str) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per request would drown the log; errors are answered in the body

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/health":
                self._send(200, {"status": "ok"})
            elif self.path == "/v1/models":
                model = {"id": served_name, "object": "model", "owned_by": "leakres"}
                self._send(200, {"object": "list", "data": [model]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            if self.path != "/v1/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                job = _completion_job(self.rfile.read(length), engine, served_name)
            except (BadRequest, json.JSONDecodeError, AttributeError, TypeError, ValueError) as exc:
                self._send(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})
                return
            batcher.submit(job)
            if job.error is not None:
                self._send(500, {"error": {"message": job.error, "type": "server_error"}})
                return
            self._send(200, _completion_response(job, served_name))

    return Handler


def _completion_job(raw: bytes, engine: LocalEngine, served_name: str) -> Any:
    """The batcher's job of a /v1/completions body (BadRequest, or a JSON/type error, when the
    body is not a request this server answers)."""
    body = json.loads(raw or b"null")
    if body.get("model") not in (None, served_name):
        raise BadRequest(f"model {body.get('model')!r} is not served; serving {served_name!r}")
    if body.get("stream"):
        raise BadRequest("'stream' is not supported by this minimal server")
    return parse_request(body, engine.tokenizer, engine.add_special_tokens)


def _completion_response(job: Any, served_name: str) -> dict[str, Any]:
    """The OpenAI completion object of a finished job: one choice per prompt and sample."""
    choices = [
        {
            "index": i * len(texts) + j,
            "text": text,
            "finish_reason": reason,
            "logprobs": None,
        }
        for i, (texts, reasons) in enumerate(zip(job.texts, job.reasons, strict=True))
        for j, (text, reason) in enumerate(zip(texts, reasons, strict=True))
    ]
    prompt_tokens, completion_tokens = job.tokens
    return {
        "id": f"cmpl-{uuid.uuid4().hex}",
        "object": "text_completion",
        "created": int(time.time()),
        "model": served_name,
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def build_server(
    engine: LocalEngine, *, host: str, port: int, served_name: str, batch_window: float = 0.05
) -> ThreadingHTTPServer:
    batcher = Batcher(engine, batch_window)
    server = ThreadingHTTPServer((host, port), make_handler(engine, batcher, served_name))
    server.daemon_threads = True
    return server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m recover_attacks.serve", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", required=True, help="model directory (safetensors + tokenizer)")
    parser.add_argument(
        "--served-model-name", default=None, help="name clients use (default: --model)"
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--max-batch-size", type=int, default=None, help="rows at once (default: auto)"
    )
    parser.add_argument(
        "--batch-window", type=float, default=0.05, help="seconds to gather requests"
    )
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    args = parser.parse_args(argv)

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if args.threads:
        torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(
        args.model, dtype=getattr(torch, args.dtype), use_safetensors=True
    ).to(device)
    engine = LocalEngine(model.eval(), tokenizer, max_batch_size=args.max_batch_size)
    name = args.served_model_name or args.model
    server = build_server(
        engine, host=args.host, port=args.port, served_name=name, batch_window=args.batch_window
    )
    print(
        f"recover_attacks.serve: {name} on http://{args.host}:{args.port}/v1 ({device})", flush=True
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # pragma: no cover - interactive use
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
