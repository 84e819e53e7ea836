"""Varied wording across a built set: each kept question's wording chosen among seeded draws.

The template generator draws a question's frame and phrasing with an RNG keyed by (seed, type,
position). Drawn independently, two questions share a wording often enough that the template's
words recur across the set: self-BLEU (the paper's variety measure, :mod:`kg_qgen.stats`) counts
a 4-gram of a question as matched as soon as *any* other question has it, and on MQuAKE-hard-dev
the template words, not the entity names, made 0.60 of the 0.64 it measured (the content floor
of ``benchmarks/kgqgen_bleu_breakdown.py`` is 0.04).

So once the build has chosen the questions it keeps, :func:`vary_wordings` does what diverse
decoding (maximal marginal relevance) does for a sampler: it draws ``draws`` wordings of every
kept question (the generation's own first, the others from the generator's ``redraw_wording``,
keyed by (seed, type, position, draw)), drops the drawn ones that fail a record check, and keeps
for each question the wording that shares the fewest n-grams with the rest of the set: one greedy
pass in a seeded order (each question against those chosen before it), then ``passes`` passes in
which each question is chosen again against all the others. A wording's cost is

    sum over n = 1..4 of log((m_n + 1) / (t_n + 1))

with ``t_n`` its n-grams (words, possessive "'s" and punctuation as tokens of their own, about
what NLTK's tokenizer gives self-BLEU, at a thousandth of its cost) and ``m_n`` those another kept
question has: the log of BLEU's geometric mean of n-gram precisions, up to smoothing. Only wordings
change; every candidate comes from the same generator and passes the same checks as the first
draw, and the questions' content, answers and ids are the build's. Because the choice minimises
the quantity self-BLEU measures, a varied set's self-BLEU says how evenly the set uses the
generator's wordings, not that there are more of them; the report keeps the figure of the
generation's own draw beside it.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kg_qgen.checking import Check
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.stats import self_bleu
from kg_qgen.textnorm import normalize

__all__ = [
    "FRAME_CAP",
    "Redraw",
    "VarietyConfig",
    "VarietyReport",
    "revert_failing",
    "vary_wordings",
]

# the most of a type's questions one wording frame may take (verify's spread report flags more)
FRAME_CAP = 0.2
MAX_N = 4
_TOKEN = re.compile(r"['’]s\b|\w+(?:[-.’']\w+)*|[^\w\s]")


@dataclass
class VarietyConfig:
    """Settings of the wording choice.

    Attributes:
        draws: wordings drawn per kept question, the generation's own included (1: keep it).
        passes: passes after the greedy one, each question chosen again against all others.
    """

    draws: int = 16
    passes: int = 1


@dataclass
class VarietyReport:
    """What the choice did; written to the build's manifest as ``wording_variety``."""

    n: int  # kept questions
    redraws: bool  # whether the generator can redraw wordings (template: yes, LLM: no)
    draws: int
    passes: int
    candidates: float  # distinct wordings that passed the checks, per question, mean
    changed: int  # questions whose kept wording is not the generation's own
    reverted: int  # chosen wordings that failed a final (costly) check: the own one kept
    self_bleu_first_draw: float | None  # of the generation's own wordings (500 sampled)
    self_bleu_chosen: float | None  # of the chosen wordings, same sample

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line for the build's output."""
        if not self.redraws:
            return "wording variety: one draw (the generator cannot redraw wordings)"
        return (
            f"wording variety: {self.changed} of {self.n} questions reworded, chosen among "
            f"{self.candidates:.1f} checked draws each; self-BLEU {self.self_bleu_first_draw} "
            f"(first draws) -> {self.self_bleu_chosen}"
        )


Grams = list[Counter]  # per order n - 1, the n-grams of one wording with their counts
# (record, attempt) -> the record with the wording of draw ``attempt`` (same content, same id)
Redraw = Callable[[dict, int], dict]


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


def _grams(text: str) -> Grams:
    toks = _TOKEN.findall(text)
    return [
        Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))
        for n in range(1, MAX_N + 1)
    ]


class _Pool:
    """How many chosen wordings have each n-gram."""

    def __init__(self) -> None:
        self.have: list[Counter] = [Counter() for _ in range(MAX_N)]

    def add(self, grams: Grams, sign: int) -> None:
        for have, counts in zip(self.have, grams, strict=True):
            for g in counts:
                have[g] += sign

    def cost(self, grams: Grams) -> float:
        total = 0.0
        for have, counts in zip(self.have, grams, strict=True):
            matched = sum(c for g, c in counts.items() if have[g] > 0)
            total += math.log((matched + 1) / (sum(counts.values()) + 1))
        return total


def _candidates(
    records: Sequence[dict],
    redraw: Redraw,
    graph: KnowledgeGraph,
    checks: Sequence[Check],
    draws: int,
) -> list[list[dict]]:
    """Per record: its own wording first, then the distinct redrawn ones that pass ``checks``
    and do not repeat another record's own wording."""
    own = {normalize(r["question"]) for r in records}
    per: list[list[dict]] = [[r] for r in records]
    flat: list[tuple[int, dict]] = []
    for i, r in enumerate(records):
        seen = {normalize(r["question"])}
        for d in range(1, draws):
            new = redraw(r, d)
            key = normalize(new["question"])
            if key not in seen and key not in own:
                seen.add(key)
                flat.append((i, new))
    alive = [new for _, new in flat]
    for check in checks:
        failed = {id(rj.record) for rj in check(alive, graph)}
        alive = [r for r in alive if id(r) not in failed]
    passed = {id(r) for r in alive}
    for i, new in flat:
        if id(new) in passed:
            per[i].append(new)
    return per


def _choose(per: list[list[dict]], passes: int, seed: int) -> list[int]:
    """The chosen candidate of every record (module docs): greedy, then ``passes`` passes."""
    grams = [[_grams(c["question"]) for c in cands] for cands in per]
    keys = [[normalize(c["question"]) for c in cands] for cands in per]
    order = list(range(len(per)))
    random.Random(f"{seed}:wording-variety").shuffle(order)
    frames = [[_frame(c) for c in cands] for cands in per]
    caps = _frame_caps(per)
    pool, taken, used = _Pool(), Counter[str](), Counter[tuple]()
    choice: list[int | None] = [None] * len(per)
    for _ in range(1 + passes):
        for i in order:
            old = choice[i]
            if old is not None:
                pool.add(grams[i][old], -1)
                taken[keys[i][old]] -= 1
                used[frames[i][old]] -= 1
            # a wording another question already has is never chosen (its own always can be)
            ok = [j for j in range(len(per[i])) if j == 0 or taken[keys[i][j]] == 0]
            # no frame over FRAME_CAP of its type while another frame is drawn (issue 34)
            cap = caps.get(frames[i][0][0], 0)
            under = [j for j in ok if frames[i][j][1] is None or used[frames[i][j]] < cap]
            best = min(
                under or ok,
                key=lambda j: (used[frames[i][j]] if not under else 0, pool.cost(grams[i][j]), j),
            )
            choice[i] = best
            pool.add(grams[i][best], 1)
            taken[keys[i][best]] += 1
            used[frames[i][best]] += 1
    return [c or 0 for c in choice]


def _frame(record: dict) -> tuple[str, str | None]:
    """(type, template id) of a wording; the id is None when the generator records none."""
    t = record.get("template")
    return (str(record.get("type")), t if isinstance(t, str) else None)


def _frame_caps(per: list[list[dict]]) -> dict[str, int]:
    """Per type: the most records one frame may take (``FRAME_CAP`` of the type, at least 1)."""
    n = Counter(str(cands[0].get("type")) for cands in per)
    return {t: max(1, int(FRAME_CAP * k)) for t, k in n.items()}


def _bleu(records: Sequence[dict], seed: int) -> float | None:
    if len(records) < 2:
        return None
    return round(self_bleu([str(r["question"]) for r in records], seed=seed), 4)


def vary_wordings(
    records: list[dict],
    redraw: Redraw | None,
    graph: KnowledgeGraph,
    checks: Sequence[Check],
    final_checks: Sequence[Check] = (),
    cfg: VarietyConfig | None = None,
    seed: int = 0,
) -> tuple[list[dict], VarietyReport]:
    """``records`` with each wording chosen as the module docs say, and the report. ``checks``
    run on every drawn wording, ``final_checks`` (costly: an LLM) once on the chosen ones that
    changed; a chosen wording failing one gives way to the record's own."""
    cfg = cfg or VarietyConfig()
    if cfg.draws < 1 or cfg.passes < 0:
        raise ValueError(f"wording variety needs draws >= 1 and passes >= 0, got {cfg}")
    first = _bleu(records, seed)
    if redraw is None or cfg.draws == 1 or len(records) < 2:
        report = VarietyReport(len(records), redraw is not None, 1, 0, 1.0, 0, 0, first, first)
        return records, report
    per = _candidates(records, redraw, graph, checks, cfg.draws)
    choice = _choose(per, cfg.passes, seed)
    out = [cands[j] for cands, j in zip(per, choice, strict=True)]
    changed = [i for i, j in enumerate(choice) if j]
    reverted = 0
    if final_checks and changed:
        back, reverted = revert_failing(
            [records[i] for i in changed], [out[i] for i in changed], graph, final_checks
        )
        for i, r in zip(changed, back, strict=True):
            out[i] = r
    report = VarietyReport(
        n=len(records),
        redraws=True,
        draws=cfg.draws,
        passes=cfg.passes,
        candidates=round(sum(map(len, per)) / len(per), 2),
        changed=sum(1 for a, b in zip(records, out, strict=True) if a is not b),
        reverted=reverted,
        self_bleu_first_draw=first,
        self_bleu_chosen=_bleu(out, seed),
    )
    return out, report
