"""Checks `leakres run`, `plan` and `tune` make before anything is loaded, created or written.

One list for all three commands, so `plan` never reports "all resolved" for a run that `run` refuses:
the judge URL's form and the endpoint itself (one 1-token request; `plan --offline` skips it), the
knowledge source (it is loaded: a malformed file fails here, in one line naming it) and whether it
has enough askable facts for ``--n-forget + --n-retain``, and options that would have no effect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from leakres_cli.config.judges import JudgeSetup, judge_setup
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.redact import check_judge_url


def ignored_options(cfg: RunConfig, given: dict[str, Any], judges: JudgeSetup) -> list[str]:
    """Options the user gave (``given``: option name -> value, None when not given) that the
    combination makes pointless; refused, so they never enter a run's fingerprint."""
    problems = []
    if not judges.endpoint:
        for name in ("judge_model", "judge_base_url", "judge_timeout", "judge_retries"):
            if given.get(name) is not None:
                flag = "--" + name.replace("_", "-")
                problems.append(f"{flag} has no effect without the llm judge (--judge {cfg.judge})")
    if given.get("bbh_limit") is not None and not cfg.bbh_tasks:
        problems.append("--bbh-limit has no effect without --bbh-tasks (BBH utility is off)")
    if given.get("ray_address") is not None and given.get("executor", "local") != "ray":
        problems.append("--ray-address has no effect without --executor ray")
    if given.get("ray_cpus") is not None and given.get("executor", "local") != "ray":
        problems.append("--ray-cpus has no effect without --executor ray")
    return problems


#: sources whose --input is a specification, not a file (kg-qgen's ``fictional``: a size name and
#: ``key=value`` pairs, e.g. ``small,seed=1``), and the sources that need no --input at all
SPEC_SOURCES = ("fictional",)
INPUT_OPTIONAL = ("builtin", *SPEC_SOURCES)


def askable_facts(cfg: RunConfig, *, download: bool = True) -> int | None:
    """Single-hop questions the knowledge source yields (each is a fact the run may ask); loads
    the source, so a missing or malformed input is a one-line LeakresError here. None: the input
    is a canonical MQuAKE name not downloaded yet and ``download`` is off (`plan` downloads nothing).
    """
    import kg_qgen
    from kg_qgen.errors import KgQgenError

    if cfg.source not in INPUT_OPTIONAL and not cfg.source_path:  # worded as `plan`'s own check
        raise LeakresError(
            f"source {cfg.source} needs --input (a file, or a canonical MQuAKE name)"
        )
    if cfg.source in SPEC_SOURCES:
        pass  # --input is a spec ("small,seed=1"): kg-qgen's loader checks it below
    elif cfg.source_path and not Path(cfg.source_path).expanduser().exists():
        from kg_qgen.sources.mquake import cache_path_for, resolve_url

        url = resolve_url(cfg.source_path) if cfg.source == "mquake" else None
        if url is None:
            raise LeakresError(f"--input {cfg.source_path}: no such file")
        if not download and not cache_path_for(url).exists():
            return None
    try:
        graph = kg_qgen.load_source(cfg.source, cfg.source_path)
        # a count only: the wording choice (16 checked draws a question) would be wasted here
        built = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed, wording_draws=1)
        return len(built.questions)
    except (KgQgenError, OSError, ValueError, KeyError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise LeakresError(f"--source {cfg.source} --input {cfg.source_path}: {message}") from exc


def size_problem(cfg: RunConfig, n_askable: int | None) -> str | None:
    """Why ``--n-forget + --n-retain`` cannot be met whatever the model knows (None: it may be)."""
    wanted = cfg.n_forget + cfg.n_retain
    if n_askable is None or n_askable >= wanted or cfg.allow_fewer:
        return None
    return (
        f"the knowledge source has {n_askable} askable single-hop facts, fewer than --n-forget "
        f"{cfg.n_forget} + --n-retain {cfg.n_retain} = {wanted} (lower them, or --allow-fewer)"
    )


def probe_judge(cfg: RunConfig, judges: JudgeSetup) -> str | None:
    """One 1-token request to each endpoint judge's endpoint (no cache, nothing written, no retry,
    at most min(--judge-timeout, 10) s: a hanging endpoint fails here in seconds); why it failed."""
    if not cfg.judge_model:
        return None
    from leak_metrics import JudgeEndpointError, get_judge

    kwargs: dict[str, Any] = {"model": cfg.judge_model, "timeout_s": cfg.judge_timeout}
    if cfg.judge_base_url:
        kwargs["base_url"] = cfg.judge_base_url
    for name in judges.endpoint:
        try:
            get_judge(name, **kwargs).check_endpoint()
        except JudgeEndpointError as exc:
            return f"judge '{name}': {exc}"
    return None


def preflight(
    cfg: RunConfig,
    given: dict[str, Any],
    *,
    probe: bool = True,
    download: bool = True,
    judges: JudgeSetup | None = None,
) -> list[str]:
    """Every problem found (empty: the run may start); cheapest checks first. ``probe``: send the
    judge its test request; ``download``: fetch a canonical MQuAKE file to count its facts;
    ``judges``: the run's :class:`JudgeSetup` when the caller has read it already."""
    judges = judge_setup(cfg) if judges is None else judges
    problems = ignored_options(cfg, given, judges)
    url_problem = check_judge_url(cfg.judge_base_url)
    if url_problem:
        problems.append(url_problem)
    try:
        size = size_problem(cfg, askable_facts(cfg, download=download))
        if size:
            problems.append(size)
    except LeakresError as exc:
        problems.append(str(exc))
    unset = judges.endpoint_problem if judges.endpoint else None
    if unset:
        problems.append(unset)
    if probe and not url_problem and not unset:
        endpoint = probe_judge(cfg, judges)
        if endpoint:
            problems.append(endpoint)
    return problems


def check(cfg: RunConfig, given: dict[str, Any], *, probe: bool = True) -> None:
    """:func:`preflight` as a one-line LeakresError (the first problem, and how many more)."""
    problems = preflight(cfg, given, probe=probe)
    if problems:
        raise LeakresError("; ".join(problems))


def validate_names(cfg: RunConfig, judges: JudgeSetup | None = None) -> None:
    """Fail fast on unknown method/attack/judge names (the registries give 'did you mean' errors);
    ``judges``: the run's :class:`JudgeSetup` when the caller has read it already."""
    from leak_metrics import get_judge

    from leakres_cli.config.paths import check_name
    from leakres_cli.config.run_config import refuse_duplicates

    judges = judge_setup(cfg) if judges is None else judges

    if getattr(cfg, "report_to", "none") != "none":  # its package, before any work
        from unlearn_zoo.tracking import check_report_to

        try:
            check_report_to(cfg.report_to)
        except ValueError as exc:
            raise LeakresError(f"--report-to: {exc}") from exc

    for what, names in (("method", cfg.methods), ("attack", cfg.attacks)):
        refuse_duplicates(names, f"--{what}s", fold=True)  # the registries ignore case
        for name in names:  # a plug-in may register any string; each names a folder in --out
            check_name(name, what)
    for registry, names, over in (("unlearn_zoo", cfg.methods, cfg.method_overrides),
                                  ("recover_attacks", cfg.attacks, cfg.attack_overrides)):  # fmt: skip
        if not names:  # unlearn-zoo's import alone takes seconds (peft): only when names need it
            continue
        factory = _registry_getter(registry)
        for name in names:
            try:
                factory(name, **over.get(name, {}))
            except (KeyError, ValueError, TypeError) as exc:
                raise LeakresError(str(exc).strip("'\"")) from exc
    refuse_duplicates([n.strip() for n in cfg.judge.split(",")], "--judge", fold=False)
    try:
        for name in cfg.judge.split(","):
            if name.strip() not in judges.endpoint:  # an endpoint judge is checked when it runs
                get_judge(name.strip())
            elif not cfg.judge_model:
                raise LeakresError(
                    f"--judge {name.strip()} needs --judge-model (and usually --judge-base-url)"
                )
    except (KeyError, ValueError, TypeError) as exc:
        raise LeakresError(str(exc).strip("'\"")) from exc


def _registry_getter(package: str) -> Any:
    """unlearn-zoo's ``get_unlearner`` or recover-attacks' ``get_attack``, imported on demand."""
    if package == "unlearn_zoo":
        from unlearn_zoo import get_unlearner

        return get_unlearner
    from recover_attacks import get_attack

    return get_attack


def check_run(cfg: RunConfig, judges: JudgeSetup, given: dict[str, Any], *, probe: bool) -> None:
    """The resolve step's one visit here, as one-line LeakresErrors, in the order ``leakres run``
    has always reported them: the names (:func:`validate_names`), the engine and dtype, the judge a
    preset requires, then every :func:`preflight` problem (``probe``: the judge's test request)."""
    from leakres_cli.models.engines import resolve_dtype, validate_engine

    validate_names(cfg, judges)
    validate_engine(cfg.engine, cfg.engine_cmd, cfg.engine_prompts)
    resolve_dtype(cfg.dtype)
    if cfg.judge_required and judges.endpoint_problem:
        raise LeakresError(f"--preset requires the LLM judge: {judges.endpoint_problem}")
    problems = preflight(cfg, given, probe=probe, judges=judges)
    if problems:
        raise LeakresError("; ".join(problems))
