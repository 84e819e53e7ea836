"""Which of a run's judges ask a model over the network, and whether they can: read once from the
configuration (:func:`judge_setup`) by the resolve step, and by the stages that build the judges.

Leak-metrics says which judges need an endpoint and where their key comes from; this module only
asks it. It imports nothing of the CLI but ``run_config``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from leakres_cli.config.run_config import RunConfig


def judge_names(cfg: RunConfig) -> list[str]:
    return [n.strip() for n in cfg.judge.split(",") if n.strip()]


def needs_endpoint(name: str) -> bool:
    """Whether leak-metrics says the judge ``name`` asks a model over the network (``llm``); an
    unknown name is False here (the name check reports it)."""
    from leak_metrics import judge_needs_endpoint

    try:
        return judge_needs_endpoint(name)
    except KeyError:
        return False


def endpoint_judges(cfg: RunConfig) -> list[str]:
    """The run's judges that ask a model over the network: --judge-model, --judge-base-url and the
    API key are theirs."""
    return [name for name in judge_names(cfg) if needs_endpoint(name)]


def endpoint_key_problem(name: str, base_url: str | None) -> str | None:
    """Why the endpoint judge ``name`` has neither an endpoint nor a key to reach the default one:
    the key is looked up the way leak-metrics' judge looks it up (``api_key_from_env``)."""
    from leak_metrics import judge_class

    cls = judge_class(name)
    if cls is None or base_url or os.environ.get("OPENAI_BASE_URL") or cls.api_key_from_env():
        return None
    return (
        f"the {name} judge has no endpoint: set --judge-base-url (LEAKRES_RUN_JUDGE_BASE_URL) for "
        "an OpenAI-compatible server, or an API key in "
        f"{' / '.join(cls.api_key_env_vars)} for the OpenAI default endpoint"
    )


def judge_endpoint_problem(cfg: RunConfig, endpoint: list[str] | None = None) -> str | None:
    """Why the run's endpoint judge (``llm``) cannot be reached as configured (None: it can be
    tried); ``endpoint``: :func:`endpoint_judges`, when the caller has it already."""
    names = endpoint_judges(cfg) if endpoint is None else endpoint
    if not names:
        return "this preset needs the llm judge (--judge llm)" if cfg.judge_required else None
    if not cfg.judge_model:
        return f"the {names[0]} judge needs --judge-model (LEAKRES_RUN_JUDGE_MODEL)"
    return next((p for n in names if (p := endpoint_key_problem(n, cfg.judge_base_url))), None)


@dataclass(frozen=True)
class JudgeSetup:
    """The run's judges, read once: every name (the first is primary), those that need an
    endpoint, and why that endpoint cannot be reached as configured (None: it may be)."""

    names: tuple[str, ...]
    endpoint: tuple[str, ...]
    endpoint_problem: str | None


def judge_setup(cfg: RunConfig) -> JudgeSetup:
    names = judge_names(cfg)
    endpoint = [name for name in names if needs_endpoint(name)]
    problem = judge_endpoint_problem(cfg, endpoint)
    return JudgeSetup(tuple(names), tuple(endpoint), problem)
