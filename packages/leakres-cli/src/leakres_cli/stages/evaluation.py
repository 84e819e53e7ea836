"""The base model's evaluation and the forget/retain selection, and each unlearned model's evaluation.

Cells: ``base-single-hop`` (the SH pool's answers), ``base`` (the frozen forget/retain selection and
the base answers to every scored question), ``METHOD/eval`` (the unlearned model's answers).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.errors import LeakresError
from leakres_cli.records import Record, fact_key
from leakres_cli.stages.judging import JudgingHost, rejudge_answers
from leakres_cli.stages.type_checks import MIN_SCORED_PER_TYPE


class EvaluationHost(JudgingHost, Protocol):
    """What the evaluations take from the run: its configuration, cells, judges, the base model
    and the greedy answers of a model (the pipeline's ``Benchmark`` is one)."""

    cfg: RunConfig

    def model(self) -> tuple[Any, Any]: ...

    def answer(self, model: Any, questions: Sequence[Record], desc: str) -> list[str]: ...

    def decoding(self) -> dict[str, Any]: ...


def run_sizes(n_known: int, cfg: RunConfig) -> tuple[int, int]:
    """(n_forget, n_retain) for ``n_known`` known facts: as requested when enough are known.

    Short of facts, the requested split is kept in proportion (at least one forget fact); whether a
    short run may go on is :func:`check_sizes`' decision.
    """
    if n_known == 0:
        raise LeakresError(
            "the base model answered no single-hop question correctly; nothing can be unlearned "
            "(try another model or source)"
        )
    wanted = cfg.n_forget + cfg.n_retain
    if n_known >= wanted:
        return cfg.n_forget, cfg.n_retain
    n_forget = min(cfg.n_forget, max(1, round(n_known * cfg.n_forget / wanted)))
    return n_forget, min(cfg.n_retain, n_known - n_forget)


def check_judge_outage(verdicts: Iterable[bool | None], needed: int) -> None:
    """A judge outage is reported as one: when answers the judge could not judge (None) leave
    fewer than ``needed`` known facts, the run stops saying so (not "the model knows nothing");
    the answers are stored, and a rerun re-judges only the unjudged ones."""
    verdicts = list(verdicts)
    unjudged = sum(v is None for v in verdicts)
    if unjudged and sum(v is True for v in verdicts) < needed:
        raise LeakresError(
            f"judge outage: {unjudged} of {len(verdicts)} base single-hop answers could not be "
            "judged (the judge failed after its retries; the warnings above say why), too many to "
            "choose the facts from; the answers are kept, rerun the same command once the judge "
            "answers (--judge-timeout, --judge-retries)"
        )


def check_sizes(sizes: dict[str, Any], cfg: RunConfig) -> None:
    """Stop before any training when the model knows too few facts, unless --allow-fewer."""
    if not sizes["short"] or cfg.allow_fewer:
        return
    where = (
        "every fact of the knowledge base was asked"
        if sizes["widened_to_every_fact"]
        or sizes["n_single_hop_asked"] > sizes["n_single_hop_pool"]
        else "no other fact is left to ask"
    )
    raise LeakresError(
        f"the base model knows {sizes['n_single_hop_known']} of {sizes['n_single_hop_asked']} "
        f"single-hop facts ({where}), fewer than --n-forget {cfg.n_forget} + --n-retain "
        f"{cfg.n_retain} = {cfg.n_forget + cfg.n_retain}; lower them, or pass --allow-fewer to run "
        f"with {sizes['actual']['n_forget']} forget and {sizes['actual']['n_retain']} retain facts"
    )


OBJECT_SHARE_DIVISOR = 3
"""At most 1/3 of the forget facts (and never fewer than 2) may share one (relation, object)
(:func:`select_facts`). Per object whatever the relation left LL under 40 scored questions at the
`types` preset's size (tests/test_preset_sizes.py); per (relation, object) keeps every type at 40."""


def select_facts(
    known: Sequence[Record], multi: Sequence[Record], n_forget: int, n_retain: int, seed: int
) -> tuple[list[Record], list[Record]]:
    """Forget and retain facts from the known SH questions (deterministic for a seed).

    Forget: greedily the known fact that brings the most multi-hop types closer to
    :data:`~leakres_cli.stages.type_checks.MIN_SCORED_PER_TYPE` scored questions (a type's gain from a
    fact is capped at what it still lacks), then, when every type has enough or no fact helps,
    the facts reached by the most multi-hop questions; ties in seeded shuffle order. Before, the
    facts with the most reach overall were taken, which let the large types fill the 48 and
    left DS or LL one or two short of 40 while the knowledge base had more for them. While a
    single type is short the two rules pick the same facts, so the smoke preset's selection is
    unchanged. At most a third of the forget facts (:data:`OBJECT_SHARE_DIVISOR`) share one
    (relation, object), filled up by reach only when the rest run out. Without the cap, 200
    questions per type on the built-in facts chose "citizenship = United States" for 30 of 48
    facts, and gradient ascent on them unlearned "United States" everywhere (retain ratio 4.2).
    Retain (METHODS.md: "neighbours: same relations, other
    subjects"): first known facts with a forget fact's relation and another subject, then facts
    of other relations and other subjects, last facts about a forget subject; seeded order inside
    each group. Disjoint from the forget facts.
    """
    reach = Counter(fact_key(q["target"]) for q in multi)
    order = list(known)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda q: -reach[fact_key(q["target"])])
    cap = max(2, -(-n_forget // OBJECT_SHARE_DIVISOR))  # ceil: 16 of 48
    forget = _forget_by_coverage(order, multi, n_forget, cap)
    chosen = {id(q) for q in forget}
    over_cap = [q for q in order if id(q) not in chosen]
    # the cap gives way only when too few other facts are known; `over_cap` keeps reach order
    forget += over_cap[: n_forget - len(forget)]
    chosen = {id(q) for q in forget}
    rest = [q for q in order if id(q) not in chosen]
    return forget, select_retain(rest, forget, n_retain, seed)


def _forget_by_coverage(
    order: Sequence[Record], multi: Sequence[Record], n_forget: int, cap: int
) -> list[Record]:
    """Up to ``n_forget`` of ``order`` (reach order) under the per-(relation, object) cap, each
    the first fact with the largest gain towards every type's quota (0 when none helps)."""
    reach_by_type: dict[tuple, Counter[str]] = {}
    for q in multi:
        reach_by_type.setdefault(fact_key(q["target"]), Counter())[q["type"]] += 1
    scored: Counter[str] = Counter()
    per_object: Counter[tuple[str, str]] = Counter()
    left = list(order)
    forget: list[Record] = []
    while len(forget) < n_forget:
        best, best_gain = None, -1
        for i, q in enumerate(left):
            if per_object[(q["target"]["relation"], q["target"]["object"])] >= cap:
                continue
            types = reach_by_type.get(fact_key(q["target"]), Counter())
            gain = sum(
                min(n, MIN_SCORED_PER_TYPE - scored[t])
                for t, n in types.items()
                if scored[t] < MIN_SCORED_PER_TYPE
            )
            if gain > best_gain:
                best, best_gain = i, gain
        if best is None:
            break
        q = left.pop(best)
        forget.append(q)
        per_object[(q["target"]["relation"], q["target"]["object"])] += 1
        scored.update(reach_by_type.get(fact_key(q["target"]), Counter()))
    return forget


def select_retain(
    candidates: Sequence[Record], forget: Sequence[Record], n_retain: int, seed: int
) -> list[Record]:
    """The retain facts among ``candidates`` (known facts), by :func:`select_facts`' rule."""
    forget_keys = {fact_key(q["target"]) for q in forget}
    forget_subjects = {q["target"]["subject"] for q in forget}
    forget_relations = {q["target"]["relation"] for q in forget}

    def neighbourhood(q: Record) -> int:
        if q["target"]["subject"] in forget_subjects:
            return 2
        return 0 if q["target"]["relation"] in forget_relations else 1

    rest = [q for q in candidates if fact_key(q["target"]) not in forget_keys]
    random.Random(seed + 1).shuffle(rest)
    rest.sort(key=neighbourhood)
    return rest[:n_retain]


def answer_and_judge(
    bench: EvaluationHost, model: Any, questions: list[Record], desc: str
) -> tuple[list[str], list[bool | None]]:
    """Greedy answers of ``model`` and the primary judge's verdicts on them."""
    answers = bench.answer(model, questions, desc)
    return answers, bench.judge(questions, [[a] for a in answers])


def base_single_hop(
    bench: EvaluationHost, pool: list[Record], reserve: list[Record]
) -> dict[str, Any]:
    """The base model's answers to the SH pool (a cell), widened to every fact when short.

    When the pool holds fewer known facts than --n-forget + --n-retain ask for, the SH
    questions of every other fact of the knowledge base (``reserve``) are asked too. Stored
    before the sizes are checked, so a run stopped for too few facts loses no answer.
    """
    name = "base-single-hop"
    by_id = {q["id"]: q for q in pool + reserve}

    def compute() -> dict[str, Any]:
        model, _ = bench.model()
        asked = list(pool)
        answers, correct = answer_and_judge(bench, model, asked, "base SH")
        needed = bench.cfg.n_forget + bench.cfg.n_retain
        widened = sum(c is True for c in correct) < needed and bool(reserve)
        if widened:
            more, more_correct = answer_and_judge(bench, model, reserve, "base SH (widened pool)")
            answers, correct, asked = answers + more, correct + more_correct, asked + reserve
        return {
            "asked_ids": [q["id"] for q in asked],
            "answers": {q["id"]: a for q, a in zip(asked, answers, strict=True)},
            "correct": {q["id"]: c for q, c in zip(asked, correct, strict=True)},
            "n_pool": len(pool),
            "widened": widened,
            "judge": bench.judge_identity(),
        }

    return bench.store.cached(name, compute, reuse=rejudge_answers(bench, name, by_id))


def base_evaluation(
    bench: EvaluationHost, questions: list[Record], reserve: list[Record]
) -> dict[str, Any]:
    """Ask the base model the SH questions, pick forget/retain facts, then ask the multi-hop ones.

    The selection is frozen in the cell (the unlearning and every evaluation depend on it);
    re-judging on resume updates verdicts, never the choice of facts.
    """
    cfg = bench.cfg
    by_id = {q["id"]: q for q in questions + reserve}
    rejudged = rejudge_answers(bench, "base", by_id)

    def reuse(cell: dict[str, Any]) -> dict[str, Any]:
        check_sizes(cell["sizes"], cfg)
        return rejudged(cell)

    def compute() -> dict[str, Any]:
        pool = [q for q in questions if q["type"] == "SH"]
        sh = base_single_hop(bench, pool, reserve)
        check_judge_outage(sh["correct"].values(), cfg.n_forget + cfg.n_retain)
        single = [by_id[i] for i in sh["asked_ids"]]
        known = [q for q in single if sh["correct"][q["id"]] is True]
        sizes = _sizes(cfg, sh, len(single), len(known))
        check_sizes(sizes, cfg)
        multi_all = [q for q in questions if q["type"] != "SH"]
        n_forget, n_retain = sizes["actual"]["n_forget"], sizes["actual"]["n_retain"]
        forget, retain = select_facts(known, multi_all, n_forget, n_retain, cfg.seed)
        forget_keys = {fact_key(q["target"]) for q in forget}
        multi = [q for q in multi_all if fact_key(q["target"]) in forget_keys]
        multi_hop = answer_and_judge(bench, bench.model()[0], multi, "base multi-hop")
        return {
            **base_answers(sh, forget, retain, multi, multi_hop, len(known)),
            "sizes": sizes,
            "decoding": bench.decoding(),
            "judge": bench.judge_identity(),
        }

    return bench.store.cached("base", compute, reuse=reuse)


def base_answers(
    sh: dict[str, Any],
    forget: list[Record],
    retain: list[Record],
    multi: list[Record],
    multi_hop: tuple[list[str], list[bool | None]],
    n_known: int,
) -> dict[str, Any]:
    """The selection and the answers of a ``base`` cell (run's and eval's alike): the forget,
    retain and multi-hop ids, every answer and verdict (the single-hop ones of ``sh``, the
    :func:`base_single_hop` cell, then ``multi_hop``'s (answers, verdicts) of ``multi``), and
    how many single-hop questions were asked and known."""
    mh_answers, mh_correct = multi_hop
    multi_ids = [q["id"] for q in multi]
    return {
        "forget_ids": [q["id"] for q in forget],
        "retain_ids": [q["id"] for q in retain],
        "multi_hop_ids": multi_ids,
        "answers": {**sh["answers"], **dict(zip(multi_ids, mh_answers, strict=True))},
        "correct": {**sh["correct"], **dict(zip(multi_ids, mh_correct, strict=True))},
        "n_single_hop_asked": len(sh["asked_ids"]),
        "n_single_hop_known": n_known,
    }


def _sizes(cfg: RunConfig, sh: dict[str, Any], n_asked: int, n_known: int) -> dict[str, Any]:
    """The ``sizes`` record of the base cell: requested and actual forget/retain counts."""
    n_forget, n_retain = run_sizes(n_known, cfg)
    return {
        "requested": {"n_forget": cfg.n_forget, "n_retain": cfg.n_retain},
        "actual": {"n_forget": n_forget, "n_retain": n_retain},
        "short": (n_forget, n_retain) != (cfg.n_forget, cfg.n_retain),
        "n_single_hop_known": n_known,
        "n_single_hop_asked": n_asked,
        "n_single_hop_pool": sh["n_pool"],
        "widened_to_every_fact": sh["widened"],
    }


def evaluate_method(
    bench: EvaluationHost,
    method: str,
    by_id: dict[str, Record],
    base: dict[str, Any],
    get_unlearned: Callable[[], Any],
) -> dict[str, Any]:
    """The unlearned model's greedy answers to every scored question (the ``METHOD/eval`` cell)."""
    name = f"{method}/eval"

    def compute() -> dict[str, Any]:
        ids = base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"]
        answers, correct = answer_and_judge(
            bench, get_unlearned(), [by_id[i] for i in ids], f"{method} eval"
        )
        return {
            "answers": dict(zip(ids, answers, strict=True)),
            "correct": dict(zip(ids, correct, strict=True)),
            "decoding": bench.decoding(),
            "judge": bench.judge_identity(),
        }

    return bench.store.cached(name, compute, reuse=rejudge_answers(bench, name, by_id))
