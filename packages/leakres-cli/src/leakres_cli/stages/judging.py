"""Judging answers: the primary judge's verdicts, re-judging stored cells, the endpoint check, and
the agreement of extra judges with the primary one.

The functions take a :class:`JudgingHost` (the run's cell store and judges; the pipeline's
``Benchmark`` is one) and call its ``judge``/``get_judge`` methods, so that a test (or a subclass)
replacing those sees every verdict. They never import the pipeline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

# the judges' names, read from the config; re-exported for the commands and tests
from leakres_cli.config.judges import (  # noqa: F401
    endpoint_judges,
    endpoint_key_problem,
    judge_names,
    needs_endpoint,
)
from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.records import Record, question_options
from leakres_cli.scale.store import CellStore


class JudgingHost(Protocol):
    """What judging takes from the run: its cells and its judges."""

    store: CellStore

    @property
    def judge_names(self) -> list[str]: ...

    def judge(
        self, questions: Sequence[Record], responses: Sequence[Sequence[str]]
    ) -> list[bool | None]: ...

    def judge_identity(self) -> dict[str, Any]: ...

    def get_judge(self, name: str) -> Any: ...


def judge_record(question: Record, responses: Sequence[str]) -> Any:
    """A leak-metrics ``MultiResponseItem`` for one question record and its responses."""
    from leak_metrics import MultiResponseItem

    return MultiResponseItem(
        id=question["id"],
        question=question["question"],
        answer=question["answer"],
        aliases=tuple(question.get("answer_aliases", [])),
        options=question_options(question),
        responses=tuple(responses),
    )


def make_judge(cfg: RunConfig, out_dir: Path, name: str) -> Any:
    """A leak-metrics judge; one that needs an endpoint (``llm``) with the run's judge model,
    endpoint and a cache in --out."""
    from leak_metrics import get_judge

    if not needs_endpoint(name):
        return get_judge(name)
    kwargs: dict[str, Any] = {
        "cache_dir": str(out_dir / "judge-cache"),
        "timeout_s": cfg.judge_timeout,
        "max_retries": cfg.judge_retries,
    }
    if cfg.judge_model:
        kwargs["model"] = cfg.judge_model
    if cfg.judge_base_url:
        kwargs["base_url"] = cfg.judge_base_url
    return get_judge(name, **kwargs)


def judge_any(
    judge: Any, questions: Sequence[Record], responses: Sequence[Sequence[str]]
) -> list[bool | None]:
    """Per question, leak-metrics' ``judge_any`` (the Probab rule) with ``judge``.

    True if any response is correct; None (unjudged) if no response could be judged, and also
    when the judged responses are wrong but some are unjudged (``mixed_unjudged_as_none``): an
    unjudged sample may be the one that leaks, so such an item is never counted as "wrong".
    """
    from leak_metrics import JudgeEndpointError
    from leak_metrics import judge_any as judge_items

    if not questions:
        return []
    items = [judge_record(q, resp) for q, resp in zip(questions, responses, strict=True)]
    try:
        verdicts = judge_items(judge, items, mixed_unjudged_as_none=True)
    except JudgeEndpointError:  # an unusable endpoint: one item at a time would only wait longer
        raise
    except Exception:  # a judge's bug must not cost the stage's answers
        return _judge_each(judge, items)
    return [v.correct for v in verdicts]


#: at most this many failing items are described on stderr per batch
MAX_JUDGE_ERRORS_SHOWN = 3


def _judge_each(judge: Any, items: list[Any]) -> list[bool | None]:
    """The batch again one question at a time, after the judge raised on it: a question whose
    judging raises is unjudged (None), never wrong, and named on stderr with the error. The
    answers then reach their cell, its summary counts the unjudged verdicts, and a resumed run
    re-judges them (:func:`rejudge`) once the judge is fixed; before, one response that broke
    the alias judge ("West Europe.", rules v12) lost every answer of the stage."""
    import sys

    from leak_metrics import judge_any as judge_items

    out: list[bool | None] = []
    failed = 0
    for item in items:
        try:
            out.append(judge_items(judge, [item], mixed_unjudged_as_none=True)[0].correct)
        except Exception as exc:  # reported below, left unjudged
            failed += 1
            out.append(None)
            if failed <= MAX_JUDGE_ERRORS_SHOWN:
                print(
                    f"leakres: judge '{getattr(judge, 'name', judge)}' raised on question "
                    f"{item.id} (responses {list(item.responses)!r}): {type(exc).__name__}: {exc}; "
                    "left unjudged (a resumed run re-judges it)",
                    file=sys.stderr,
                )
    if failed > MAX_JUDGE_ERRORS_SHOWN:
        print(f"leakres: ... {failed} questions left unjudged in all", file=sys.stderr)
    return out


def rejudge(
    bench: JudgingHost,
    name: str,
    payload: dict[str, Any],
    verdict_key: str,
    by_id: dict[str, Record],
    responses_of: Callable[[str], list[str]],
) -> dict[str, Any]:
    """Re-judge the unjudged (None) verdicts of a stored cell; keep its answers; store the result.

    A finished cell must not freeze a judge outage: on resume only the judge runs again, only
    for the None verdicts (an LLM judge's cache answers nothing twice), and the cell is
    rewritten with the new verdicts. Verdicts still None stay None. A cell judged under another
    judge identity (``payload["judge"]``: a new rules or prompt version, another judge model; none
    in cells written before it was recorded) has every verdict re-judged: the answers stay,
    the verdicts follow the judge the run uses now.
    """
    identity = bench.judge_identity()
    if payload.get("judge") != identity:
        pending = list(payload[verdict_key])
        payload["judge"] = identity
        payload["rejudged_for_judge_change"] = len(pending)
    else:
        pending = [qid for qid, verdict in payload[verdict_key].items() if verdict is None]
    if not pending:
        return payload
    verdicts = bench.judge([by_id[qid] for qid in pending], [responses_of(qid) for qid in pending])
    payload[verdict_key].update(zip(pending, verdicts, strict=True))
    payload["n_rejudged"] = payload.get("n_rejudged", 0) + len(pending)
    bench.store.put(name, payload)
    return payload


def rejudge_answers(
    bench: JudgingHost, name: str, by_id: dict[str, Record]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """:func:`rejudge` for a cell of greedy answers (``answers``/``correct``): CellStore's reuse."""
    return lambda cell: rejudge(bench, name, cell, "correct", by_id, lambda i: [cell["answers"][i]])


def check_judge_endpoints(bench: JudgingHost) -> None:
    """One request per LLM judge before any model work: a dead or unauthorised endpoint is a
    one-line error now, not minutes of decoding followed by nothing but unjudged verdicts."""
    from leak_metrics import JudgeEndpointError

    for name in bench.judge_names:
        check = getattr(bench.get_judge(name), "check_endpoint", None)
        if check is None:  # judges that call nothing (alias)
            continue
        try:
            check()
        except JudgeEndpointError as exc:
            raise LeakresError(f"judge '{name}': {exc}") from exc


def judge_agreement(
    bench: JudgingHost, by_id: dict[str, Record], answer_cells: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Every extra judge re-judges the greedy answers; agreement with the primary judge (a cell).

    Not stored while an endpoint failed: a rerun asks again for the unjudged items.
    """
    return bench.store.cached(
        "judges",
        lambda: _agreement(bench, _agreement_items(by_id, answer_cells)),
        keep=lambda payload: not any(a["n_unjudged"] for a in payload["agreement"].values()),
    )


def _agreement_items(by_id: dict[str, Record], answer_cells: dict[str, dict[str, Any]]) -> list:
    from leak_metrics import JudgeItem

    return [
        JudgeItem(
            id=f"{cell}:{qid}",
            question=by_id[qid]["question"],
            answer=by_id[qid]["answer"],
            aliases=tuple(by_id[qid].get("answer_aliases", [])),
            options=question_options(by_id[qid]),
            response=response,
        )
        for cell, table in answer_cells.items()
        for qid, response in table["answers"].items()
    ]


def _agreement(bench: JudgingHost, items: list) -> dict[str, Any]:
    from leak_metrics import agreement

    primary_name, *others = bench.judge_names
    primary = bench.get_judge(primary_name).judge(items)
    payload: dict[str, Any] = {"primary": primary_name, "n_items": len(items), "agreement": {}}
    for name in others:
        judge = bench.get_judge(name)
        verdicts = judge.judge(items)
        payload["agreement"][name] = {
            **agreement(primary, verdicts),
            "n_unjudged": sum(v.correct is None for v in verdicts),
            "usage": _usage(judge),
        }
    return payload


def _usage(judge: Any) -> dict[str, Any]:
    """An LLM judge's request/token counters (a dataclass) as a dict; {} for judges without usage."""
    usage = getattr(judge, "usage", None)
    return dataclasses.asdict(usage) if dataclasses.is_dataclass(usage) else {}
