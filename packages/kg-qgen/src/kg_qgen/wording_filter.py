"""Adversarial filtering of the kept MT wordings (seeded, as SWAG and HellaSwag filter theirs).

Every MT question draws its own wording (:mod:`kg_qgen.generate.mt_wording`); the mirror pairs
of :mod:`kg_qgen.match.mt` keep the *content* balanced (a yes item and a no item with the same
names), but independently drawn words are not balanced by construction. ``kg-qgen verify`` fails
an MT set of 60 or more items on which any rule of one or two words
(:func:`kg_qgen.verify.balance.best_short_rule`) is right more than 65 % of the time, and with
~10^4 rules fitted to 60-100 items that bound sits at the noise floor: with the answers permuted
at random the best rule exceeds 0.65 in 84-94 % of permutations
(``benchmarks/kgqgen_short_rule_null.py``); whole fresh draws of the MQuAKE dev set's 70 MT
wordings passed in none of 64 tries.

So once the build has chosen the MT questions it keeps, :func:`filter_wordings` fits that rule on
them and, while it is above the bound, takes an adversarial step (attempt 1, 2, ...): the
questions the best rule answers right are the ones that make it work, so twice as many of them
as it is right above the bound (a redrawn question is right half the time) get a new wording, drawn by the generator's RNG keyed by (seed, position, attempt) and chosen by an RNG
keyed by (seed, attempt); then the rule is fitted again. Each step starts from the best draw so
far (hill climbing; a step that leaves the rule no worse is taken, so it can cross a plateau):
stepping on from the last draw instead, with steps sized to bring the rule back to chance,
passed none of 128 draws on the MQuAKE dev set once the round-four wordings were merged, one
question from the bound. The first draw within the bound is kept
(the same seed gives the same draw); after ``max_attempts`` draws the one with the lowest
accuracy is kept and the report carries a warning that the build prints (``verify`` then fails a
set of 60 or more). Only wordings change: the questions, their answers and the mirror pairs are
those the build selected.

A redrawn question must pass the same record checks as the first one: the deterministic checks
run on every redraw, the extra ones (an LLM judge, costly) once on the kept draw's redrawn
questions; a question failing any keeps the wording it had (counted in ``reverted``). A generator
without ``redraw_wording`` (the LLM generator) gives one draw, measured and reported the same way.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from kg_qgen.graph import KnowledgeGraph
from kg_qgen.verify.balance import CueResult, best_short_rule
from kg_qgen.verify.base import Check
from kg_qgen.verify.report import CUE_MIN_N, CUE_THRESHOLD

__all__ = [
    "Redraw",
    "WordingFilterConfig",
    "WordingFilterReport",
    "filter_wordings",
    "revert_failing",
]

# (record, attempt) -> the record with the wording of draw ``attempt`` (same content, same id)
Redraw = Callable[[dict, int], dict]


@dataclass
class WordingFilterConfig:
    """Settings of the MT wording filter.

    Attributes:
        max_attempts: draws measured at most, the generation's own draw first.
        bound: the best one/two-word rule accuracy a kept draw may reach (verify's bound).
        min_n: verify enforces the bound from this many items; a smaller set is filtered the
            same way, and a miss is reported as not judged.
    """

    max_attempts: int = 128
    bound: float = CUE_THRESHOLD
    min_n: int = CUE_MIN_N


@dataclass
class WordingFilterReport:
    """What the filter did; written to the build's manifest as ``mt_wording``."""

    n: int
    redraws: bool  # whether the generator can redraw wordings (template: yes, LLM: no)
    attempts: int  # draws measured
    max_attempts: int
    kept_attempt: int  # the kept draw (0: the generation's own wording)
    accuracy: float  # best one/two-word rule accuracy on the kept draw
    rule: str
    bound: float
    passed: bool  # accuracy <= bound
    judged: bool  # n >= min_n: verify enforces the bound on this set
    reverted: int  # redraws that failed a record check (the question kept its wording)
    accuracies: list[float] = field(default_factory=list)  # per draw, in order
    warning: str | None = None
    # how each redraw was chosen (the build's: "the least shared of 16 draws", "a single draw")
    redraw_choice: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line for the build's output."""
        how = (
            f"draw {self.kept_attempt + 1} of {self.attempts} tried (at most {self.max_attempts}"
            + (f", each redraw {self.redraw_choice})" if self.redraw_choice else ")")
            if self.redraws
            else "one draw (the generator cannot redraw wordings)"
        )
        return (
            f"MT wording: {how}; best one/two-word rule {self.accuracy:.3f} "
            f"({'<=' if self.passed else '>'} {self.bound}, n={self.n}"
            f"{'' if self.judged else ', not judged by verify'}); {self.reverted} reverted"
        )


def _cue(records: Sequence[dict]) -> CueResult:
    """The rule verify's ``mt_balance`` fits, on the same strings."""
    return best_short_rule(
        [str(r.get("question", "")) for r in records], [str(r.get("answer")) for r in records]
    )


def revert_failing(
    current: list[dict], new: list[dict], graph: KnowledgeGraph, checks: Sequence[Check]
) -> tuple[list[dict], int]:
    """``new`` with every question that fails a check replaced by its ``current`` wording."""
    failed: set[int] = set()
    alive = new
    for check in checks:
        failed |= {id(rj.record) for rj in check(alive, graph)}
        alive = [r for r in alive if id(r) not in failed]
    return [old if id(r) in failed else r for old, r in zip(current, new, strict=True)], len(failed)


def _step(
    draw: list[dict],
    cue: CueResult,
    redraw: Redraw,
    attempt: int,
    seed: int,
    graph: KnowledgeGraph,
    checks: Sequence[Check],
    bound: float,
) -> tuple[list[dict], int]:
    """One adversarial step: redraw the wordings of questions the best rule answers right, as
    many as bring it back to chance on average (a redrawn question is right half the time),
    chosen with an RNG seeded by (seed, attempt); the others keep theirs."""
    right = [i for i, r in enumerate(draw) if cue.predicts(str(r["question"])) == r["answer"]]
    # twice the excess over the bound (a redrawn question is right half the time): small steps
    # near the bound, where a large one throws away a draw that is one question from passing
    excess = len(right) - math.floor(bound * len(draw) + 1e-9)
    k = min(len(right), max(1, 2 * excess))
    chosen = sorted(random.Random(f"{seed}:mt-wording-filter:{attempt}").sample(right, k))
    redrawn, failed = revert_failing(
        [draw[i] for i in chosen], [redraw(draw[i], attempt) for i in chosen], graph, checks
    )
    out = list(draw)
    for i, r in zip(chosen, redrawn, strict=True):
        out[i] = r
    return out, failed


def filter_wordings(
    records: list[dict],
    redraw: Redraw | None,
    graph: KnowledgeGraph,
    checks: Sequence[Check],
    final_checks: Sequence[Check] = (),
    cfg: WordingFilterConfig | None = None,
    seed: int = 0,
) -> tuple[list[dict], WordingFilterReport]:
    """The kept MT ``records`` with the first wording draw no short rule reads (module docs),
    and the report. ``checks`` run on every redraw, ``final_checks`` on the kept draw."""
    cfg = cfg or WordingFilterConfig()
    n = len(records)
    tries = cfg.max_attempts if redraw is not None and n >= 2 else 1
    draw, cue, reverted = records, _cue(records), 0
    accuracies = [round(cue.accuracy, 6)]
    best = (cue.accuracy, 0, draw, cue, reverted)
    for attempt in range(1, tries):
        if best[0] <= cfg.bound or not cue.cue:
            break
        assert redraw is not None
        # hill climbing: every step starts from the best draw so far, and a step that does not
        # make the best rule worse is taken (sideways moves let it leave a plateau)
        _, _, draw, cue, _ = best
        draw, failed = _step(draw, cue, redraw, attempt, seed, graph, checks, cfg.bound)
        reverted += failed
        cue = _cue(draw)
        accuracies.append(round(cue.accuracy, 6))
        if cue.accuracy <= best[0]:
            best = (cue.accuracy, attempt, draw, cue, reverted)
    _, kept_attempt, draw, cue, reverted = best
    changed = [i for i, (a, b) in enumerate(zip(records, draw, strict=True)) if a is not b]
    if final_checks and changed:  # costly checks (an LLM): once, on the redrawn questions only
        back, more = revert_failing(
            [records[i] for i in changed], [draw[i] for i in changed], graph, final_checks
        )
        if more:
            draw = list(draw)
            for i, r in zip(changed, back, strict=True):
                draw[i] = r
            reverted += more
            cue = _cue(draw)
    report = WordingFilterReport(
        n=n,
        redraws=redraw is not None,
        attempts=len(accuracies),
        max_attempts=cfg.max_attempts if redraw is not None else 1,
        kept_attempt=kept_attempt,
        accuracy=round(cue.accuracy, 6),
        rule=cue.rule,
        bound=cfg.bound,
        passed=cue.accuracy <= cfg.bound,
        judged=n >= cfg.min_n,
        reverted=reverted,
        accuracies=accuracies,
    )
    if not report.passed:
        report.warning = _warning(report, cfg)
    return draw, report


def _warning(report: WordingFilterReport, cfg: WordingFilterConfig) -> str:
    tried = (
        f"none of {report.attempts} wording draws"
        if report.redraws
        else "the generator's only draw (it cannot redraw wordings)"
    )
    consequence = (
        "kg-qgen verify fails this set"
        if report.judged
        else f"n < {cfg.min_n}: verify reports it but does not judge"
    )
    return (
        f"MT wording: {tried} kept the best one/two-word rule within {cfg.bound} on the "
        f"{report.n} kept MT questions; kept draw {report.kept_attempt + 1} with "
        f"{report.accuracy:.3f} ({report.rule}); {consequence}"
    )
