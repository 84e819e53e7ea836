"""Black-box models of `leakres eval`: a base or unlearned model known only by its endpoint.

A model behind an OpenAI-compatible ``/v1`` endpoint (``--base-endpoint``,
``--unlearned-endpoint``) is a :class:`RemoteModel`: the run's generation router
(:func:`endpoint_router`) sends its greedy evaluation, Probab's samples and FocusOnKey's answer to
that endpoint, and its BBH utility goes there too (:func:`remote_bbh`, through leak-metrics'
``generate_fn``). Prompts are formatted here with a tokenizer (ARCHITECTURE.md section 3: the
chat template, sent as token ids, or as text with ``--engine-prompts text``), so the endpoint sees
what an in-process model would. What needs weights cannot reach such a model and is skipped
(:func:`skipped_attacks`). The API key is the one the openai client reads, ``$OPENAI_API_KEY``; it
is never recorded, and every endpoint URL written or printed goes through :func:`redact_url`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from leakres_cli.errors import LeakresError
from leakres_cli.redact import redact_url
from leakres_cli.stages.bbh import bbh_cell

if TYPE_CHECKING:
    from leakres_cli.stages.pipeline import Benchmark

#: the attacks that can reach an unlearned model behind an endpoint (the rest need its weights here)
ENDPOINT_ATTACKS = ("probab", "focus_on_key")
#: the attacks that need the base model's weights (FocusOnKey's key words: theta_p's token
#: contributions, forward and backward passes of the base model)
BASE_WEIGHT_ATTACKS = ("focus_on_key",)
UNLEARNED_REASON = "needs the unlearned model's weights (the model is behind --unlearned-endpoint)"
BASE_REASON = (
    "needs the base model's weights (its key words are the base model's token contributions; "
    "the base is behind --base-endpoint)"
)


class RemoteModel:
    """A model known only by its endpoint: every generation goes to its server."""

    def __init__(self, base_url: str, name: str, prompts: str) -> None:
        self.base_url, self.name, self.prompts = base_url, name, prompts
        self._client: Any = None

    def client(self, tokenizer: Any) -> Any:
        if self._client is None:
            self._client = self._engine(tokenizer)
        return self._client

    def bbh_generate_fn(self, tokenizer: Any) -> Any:
        """leak-metrics' ``generate_fn`` over the endpoint: greedy, the raw BBH prompts tokenized
        without special tokens, as its in-process loop tokenizes them."""
        engine = self._engine(tokenizer, add_special_tokens=False)
        return engine, engine.generate_fn()

    def _engine(self, tokenizer: Any, **options: Any) -> Any:
        from recover_attacks.engine import OpenAIEngine

        class RedactedEngine(OpenAIEngine):
            """Its ``describe`` (recorded in attack cells) without the URL's credentials."""

            def describe(self) -> dict[str, Any]:
                return {**super().describe(), "base_url": redact_url(self.base_url)}

        return RedactedEngine(
            self.base_url,
            self.name,
            tokenizer=tokenizer,
            prompt_token_ids=self.prompts == "ids",
            **options,
        )

    def describe(self) -> dict[str, Any]:
        return {"model": self.name, "endpoint": redact_url(self.base_url), "kind": "endpoint"}

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def endpoint_router(base: Any) -> Any:
    """The run's router, extended: a :class:`RemoteModel` decodes on its own endpoint (greedy
    evaluation, Probab's samples, FocusOnKey's answer); every other model as before."""
    from leakres_cli.models.engines import GenerationRouter

    class EndpointRouter(type(base)):  # type: ignore[misc]
        def engine_for(self, model: Any, tokenizer: Any) -> Any:
            if isinstance(model, RemoteModel):
                return model.client(tokenizer)
            return GenerationRouter.engine_for(self, model, tokenizer)

        def release(self, model: Any) -> None:
            if isinstance(model, RemoteModel):
                model.close()
            GenerationRouter.release(self, model)

    base.__class__ = EndpointRouter
    return base


def skipped_attacks(
    attacks: tuple[str, ...], *, base_remote: bool, unlearned_remote: bool
) -> dict[str, str]:
    """The attacks that cannot run with these black boxes, each with its reason (in run order)."""
    skipped: dict[str, str] = {}
    for attack in attacks:
        if unlearned_remote and attack not in ENDPOINT_ATTACKS:
            skipped[attack] = UNLEARNED_REASON
        elif base_remote and attack in BASE_WEIGHT_ATTACKS:
            skipped[attack] = BASE_REASON
    return skipped


def check_black_box_options(
    inputs: Any, engine: str, model: str, adapter: bool, contact: bool = True
) -> None:
    """`leakres eval`'s one-line errors for what cannot work with black-box models (``inputs``:
    its :class:`~leakres_cli.models.external.EvalInputs`; ``engine``, ``model``: the run's
    ``--engine`` and ``--base``; ``adapter``: the unlearned model is a peft adapter), then
    (``contact``) one request to each endpoint (dead, refusing the key, or not serving the named
    model), before any work."""
    base_remote, unlearned_remote = inputs.base_endpoint is not None, inputs.endpoint is not None
    if inputs.tokenizer is not None and not base_remote:
        raise LeakresError(
            "--tokenizer formats the prompts of a black-box base; it needs --base-endpoint (a "
            "local base formats them with its own tokenizer)"
        )
    if base_remote and unlearned_remote and engine != "local":
        raise LeakresError(
            f"--engine {engine} serves local weights; with --base-endpoint and "
            "--unlearned-endpoint there are none"
        )
    if base_remote and adapter and inputs.adapter_base is None:
        raise LeakresError(
            f"the unlearned model {inputs.unlearned} is a peft adapter: it needs the weights it "
            "attaches to (--adapter-base MODEL), and the base is behind --base-endpoint"
        )
    for option, url in (
        ("--base-endpoint", inputs.base_endpoint),
        ("--unlearned-endpoint", inputs.endpoint),
    ):
        if url is not None and not url.startswith(("http://", "https://")):
            raise LeakresError(
                f"{option} expects an http(s)://host[:port]/v1 URL, got {redact_url(url)}"
            )
    if not contact:
        return
    if base_remote:
        check_endpoint("--base-endpoint", inputs.base_endpoint, model)
        option = "--tokenizer" if inputs.tokenizer else "--base"
        load_tokenizer(inputs.tokenizer or model, option)  # fails now, not after the questions
    if unlearned_remote:
        check_endpoint("--unlearned-endpoint", inputs.endpoint, inputs.unlearned)


def check_endpoint(option: str, url: str, model: str) -> None:
    """One ``GET /models`` before any work: a dead endpoint, a refused key or a server that does
    not serve ``model`` is a one-line error naming the option and the (redacted) URL. A server
    without ``/models`` (HTTP 404) is let through: the first completion request tells."""
    import openai

    shown = redact_url(url)
    if not url.startswith(("http://", "https://")):
        raise LeakresError(f"{option} expects an http(s)://host[:port]/v1 URL, got {shown}")
    client = openai.OpenAI(base_url=url, api_key=_api_key(), timeout=30.0, max_retries=1)
    try:
        served = [m.id for m in client.models.list()]
    except openai.NotFoundError:
        return
    except openai.APIStatusError as exc:
        raise LeakresError(
            f"{option} {shown} answered HTTP {exc.status_code} to GET /models"
            + (" (is $OPENAI_API_KEY the key it expects?)" if exc.status_code in (401, 403) else "")
        ) from None
    except openai.APIError as exc:
        raise LeakresError(f"{option} {shown} is unreachable ({type(exc).__name__})") from None
    finally:
        client.close()
    if served and model not in served:
        raise LeakresError(
            f"{option} {shown} serves no model named '{model}' (it serves: {', '.join(served)})"
        )


def _api_key() -> str:
    import os

    return os.environ.get("OPENAI_API_KEY") or "EMPTY"  # the key OpenAIEngine sends


def load_tokenizer(name: str, option: str) -> tuple[Any, str]:
    """(tokenizer, resolved path) of ``name`` (anything ``--model`` accepts): its tokenizer files
    only, set up as :func:`leakres_cli.models.catalog.load_model` sets them (pad token, left padding)."""
    from transformers import AutoTokenizer

    from leakres_cli.models.catalog import resolve_model

    try:
        resolved = resolve_model(name)
        tokenizer = AutoTokenizer.from_pretrained(resolved)
    except (LeakresError, OSError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise LeakresError(
            f"{option} '{name}': no tokenizer to format the prompts with ({first}); a black-box "
            "base needs --tokenizer MODEL (a local directory or Hugging Face id whose chat "
            "template the endpoint's model expects)"
        ) from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return tokenizer, resolved


def remote_bbh(bench: Benchmark, name: str, remote: RemoteModel) -> dict[str, Any]:
    """The BBH cell of a model behind an endpoint: :func:`leakres_cli.stages.bbh.bbh_cell` (the cell of
    an in-process model) with leak-metrics' ``generate_fn`` over the endpoint; its ``config``
    also names the endpoint (the utility ratio reads ``correct`` and ``overall``)."""

    @contextmanager
    def over_endpoint(tokenizer: Any) -> Iterator[dict[str, Any]]:
        engine, generate_fn = remote.bbh_generate_fn(tokenizer)
        try:
            yield {"generate_fn": generate_fn}
        finally:
            engine.close()

    return bbh_cell(bench, name, over_endpoint, {"endpoint": remote.describe()})
