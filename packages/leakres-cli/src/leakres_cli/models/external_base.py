"""The ``base`` cell of `leakres eval` (:class:`~leakres_cli.models.external.ExternalBenchmark`): which of
the given forget/retain facts the base model knows, and its answers (the run's own stages)."""

from __future__ import annotations

from typing import Any

from leakres_cli.errors import LeakresError
from leakres_cli.records import Record, fact_key
from leakres_cli.stages.evaluation import (
    answer_and_judge,
    base_answers,
    base_single_hop,
    check_judge_outage,
    select_retain,
)
from leakres_cli.stages.judging import rejudge_answers
from leakres_cli.stages.pipeline import Benchmark


def external_base_evaluation(
    bench: Benchmark,
    questions: list[Record],
    reserve: list[Record],
    data: dict[str, Any],
    n_forget_given: int,
) -> dict[str, Any]:
    """The ``base`` cell of an eval: the base model's answers to the SH pool, the forget facts it
    knows (the others listed with the reason; they stop the run unless --allow-fewer), the retain
    facts (given, or chosen as `run` chooses them), and its answers to the multi-hop questions.
    ``n_forget_given``: how many forget facts the user gave (the cell's requested size)."""
    cfg = bench.cfg
    by_id = {q["id"]: q for q in questions + reserve}
    rejudged = rejudge_answers(bench, "base", by_id)

    def reuse(cell: dict[str, Any]) -> dict[str, Any]:
        _check_excluded(cell["excluded"], cfg.allow_fewer)
        return rejudged(cell)

    def compute() -> dict[str, Any]:
        pool = [q for q in questions if q["type"] == "SH"]
        sh = base_single_hop(bench, pool, reserve)
        requested = data["requested"]
        given = requested["forget_ids"] + requested["retain_ids"]
        check_judge_outage([sh["correct"].get(i) for i in given], len(given))
        known = {i for i, ok in sh["correct"].items() if ok is True}
        excluded = list(data["missing"]) + _unknown(requested, known, sh, by_id)
        forget = [by_id[i] for i in requested["forget_ids"] if i in known]
        if not forget:
            raise LeakresError(
                "the base model knows none of the forget facts; nothing to measure"
                + _excluded_lines(excluded)
            )
        retain = _retain(bench, requested, known, sh, by_id, forget)
        forget_keys = {fact_key(q["target"]) for q in forget}
        multi = [q for q in questions if q["type"] != "SH" and fact_key(q["target"]) in forget_keys]
        mh_answers, mh_correct = answer_and_judge(bench, bench.model()[0], multi, "base multi-hop")
        n_retain_wanted = len(requested["retain_ids"]) or cfg.n_retain
        cell = _base_cell(sh, known, by_id, forget, retain, multi, (mh_answers, mh_correct))
        cell["sizes"] = {
            "requested": {"n_forget": n_forget_given, "n_retain": n_retain_wanted},
            "actual": {"n_forget": len(forget), "n_retain": len(retain)},
            "short": bool(excluded) or len(retain) < n_retain_wanted,
            **cell.pop("sizes"),
        }
        cell["excluded"] = excluded
        cell["decoding"] = bench.decoding()
        identity = getattr(bench, "judge_identity", None)
        if identity is not None:  # the judge the verdicts came from, as run's base cell records it
            cell["judge"] = identity()
        # stored before the check: a rerun with --allow-fewer reuses it
        bench.store.put("base", cell)
        _check_excluded(excluded, cfg.allow_fewer)
        return cell

    return bench.store.cached("base", compute, reuse=reuse)


def _base_cell(
    sh: dict[str, Any],
    known: set[str],
    by_id: dict[str, Record],
    forget: list[Record],
    retain: list[Record],
    multi: list[Record],
    multi_hop: tuple[list[str], list[bool | None]],
) -> dict[str, Any]:
    """The base cell's selection and answers (:func:`~leakres_cli.stages.evaluation.base_answers`, as
    run's base cell has them); ``sizes`` holds only the single-hop counts here (the caller puts
    the requested/actual sizes first)."""
    n_known = sum(by_id[i]["type"] == "SH" for i in known)
    return {
        **base_answers(sh, forget, retain, multi, multi_hop, n_known),
        "sizes": {
            "n_single_hop_known": n_known,
            "n_single_hop_asked": len(sh["asked_ids"]),
            "n_single_hop_pool": sh["n_pool"],
            "widened_to_every_fact": sh["widened"],
        },
    }


def _unknown(
    requested: dict[str, list[str]], known: set[str], sh: dict[str, Any], by_id: dict[str, Record]
) -> list[dict[str, Any]]:
    """The given forget/retain facts the base model does not know, each with the reason."""
    excluded = []
    for role in ("forget", "retain"):
        for i in requested[f"{role}_ids"]:
            if i not in known:
                why = "unjudged" if sh["correct"].get(i) is None else "answered incorrectly"
                excluded.append(
                    {
                        "fact": by_id[i]["target"],
                        "role": role,
                        "reason": f"the base model does not know it ({why}: "
                        f"{sh['answers'].get(i, '')!r})",
                    }
                )
    return excluded


def _retain(
    bench: Benchmark,
    requested: dict[str, list[str]],
    known: set[str],
    sh: dict[str, Any],
    by_id: dict[str, Record],
    forget: list[Record],
) -> list[Record]:
    """The given retain facts the base model knows, or (none given) those `run` would choose."""
    if requested["retain_ids"]:
        return [by_id[i] for i in requested["retain_ids"] if i in known]
    forget_keys = {fact_key(q["target"]) for q in forget}
    candidates = [
        by_id[i]
        for i in sh["asked_ids"]
        if i in known and fact_key(by_id[i]["target"]) not in forget_keys
    ]
    return select_retain(candidates, forget, bench.cfg.n_retain, bench.cfg.seed)


def _excluded_lines(excluded: list[dict[str, Any]]) -> str:
    lines = [
        f"\n  {e['role']} {e['fact'].get('id') or tuple(e['fact'].values())}: {e['reason']}"
        for e in excluded
    ]
    return "".join(lines)


def _check_excluded(excluded: list[dict[str, Any]], allow_fewer: bool) -> None:
    if excluded and not allow_fewer:
        raise LeakresError(
            f"{len(excluded)} of the given facts cannot be measured (pass --allow-fewer to go on "
            "without them):" + _excluded_lines(excluded)
        )
