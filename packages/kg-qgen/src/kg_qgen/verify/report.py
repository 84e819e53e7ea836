"""``verify_records``: re-check a built question set against its knowledge source.

Runs every deterministic check (:func:`kg_qgen.verify.deterministic.default_checks`: schema,
premises, relation labels, logic, leaks, style, duplicates) on EVERY record (a record failing
several checks is reported once per check; records that fail the schema are not passed to the
other checks, which need its fields), then the set-level checks:

* ``mt_text`` (:mod:`kg_qgen.verify.mt_text`): a text-only classifier trained on half of the MT
  items reads the gold no better than chance + 0.10; distinct facts, gold and frame spread, no
  repeats, nothing said to "follow" (judged from 100 MT items).
* ``ds_options``: with at least ``cue_min_n`` DS questions, no rule of one or two words on the
  option strings (or the display position) may pick the gold with accuracy above
  ``cue_threshold``; smaller sets are reported, not judged.
* ``ds_positions`` (:mod:`kg_qgen.verify.ds_positions`): the "last survivor", "first option"
  and "gold slot" rules each at most chance + 10 points, on sets of >= 100 DS items.
* ``one_hop_shortcut`` (:mod:`kg_qgen.verify.shortcut`): multi-hop items answerable by one other
  fact or from a name, per type (must be 0).
* ``spread`` (:mod:`kg_qgen.verify.spread`): top-gold share, top-frame share and repeated
  (type, facts) items per type.

``kg-qgen verify`` writes :meth:`VerifyReport.to_dict` as JSON and exits non-zero unless
``report.ok``; ``kg-qgen build`` runs the same function before saving.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from kg_qgen.checking import Check
from kg_qgen.graph import KnowledgeGraph
from kg_qgen.verify.balance import ds_option_balance
from kg_qgen.verify.deterministic import AnswerPresentCheck, default_checks
from kg_qgen.verify.ds_positions import ds_position_check
from kg_qgen.verify.mt_text import mt_set_check
from kg_qgen.verify.shortcut import shortcut_report
from kg_qgen.verify.spread import spread_report

__all__ = ["VerifyReport", "verify_records"]

CUE_THRESHOLD = 0.65
CUE_MIN_N = 60


@dataclass
class VerifyReport:
    ok: bool
    n: int
    per_type: dict[str, dict[str, Any]]
    set_checks: dict[str, dict[str, Any]]
    checks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "n": self.n,
            "checks": self.checks,
            "per_type": self.per_type,
            "set_checks": self.set_checks,
        }

    def failures(self) -> list[dict[str, str]]:
        return [f for t in self.per_type.values() for f in t["failures"]]

    def summary_lines(self) -> list[str]:
        lines = [f"{'type':<6}{'n':>6}{'passed':>8}{'failed':>8}  failing checks"]
        for t, s in self.per_type.items():
            by = ", ".join(f"{k}: {v}" for k, v in s["failed_by"].items()) or "-"
            lines.append(f"{t:<6}{s['n']:>6}{s['passed']:>8}{s['failed']:>8}  {by}")
        for name, s in self.set_checks.items():
            lines.append(f"{name}: {'ok' if s['ok'] else 'FAILED'} ({s['detail']})")
        lines.append(f"verification {'passed' if self.ok else 'FAILED'}: {self.n} questions")
        return lines


def verify_records(
    records: Sequence[dict],
    graph: KnowledgeGraph,
    checks: Sequence[Check] | None = None,
    *,
    cue_threshold: float = CUE_THRESHOLD,
    cue_min_n: int = CUE_MIN_N,
) -> VerifyReport:
    """Every check on every record, plus the set-level checks (module docs)."""
    checks = list(checks) if checks is not None else default_checks()
    per_type, failed_ids = _per_type(records, graph, checks)
    set_checks: dict[str, dict[str, Any]] = {}
    mt = mt_set_check(records)
    if mt is not None:
        set_checks["mt_text"] = mt
    ds = _ds_options_check(records, cue_threshold, cue_min_n)
    if ds is not None:
        set_checks["ds_options"] = ds
    positions = ds_position_check(records)
    if positions is not None:
        set_checks["ds_positions"] = positions
    set_checks["one_hop_shortcut"] = shortcut_report(records, graph)  # issue 34 item 3
    set_checks["spread"] = spread_report(records)  # issue 34 item 5
    ok = not any(failed_ids.values()) and all(s["ok"] for s in set_checks.values())
    return VerifyReport(
        ok=ok,
        n=len(records),
        per_type=per_type,
        set_checks=set_checks,
        checks=[c.name for c in checks],
    )


def _record_type(r: dict) -> str:
    t = r.get("type")
    return t if isinstance(t, str) else "?"


def _per_type(
    records: Sequence[dict], graph: KnowledgeGraph, checks: Sequence[Check]
) -> tuple[dict[str, dict[str, Any]], dict[str, set[str]]]:
    """Every check on every record: counts and failures per type, and the failed ids per type.
    A record that fails the schema check (answer present) is not given to later checks."""
    failures: dict[str, list[dict[str, str]]] = defaultdict(list)
    failed_ids: dict[str, set[str]] = defaultdict(set)
    by_check: dict[str, Counter[str]] = defaultdict(Counter)
    schema_bad: set[int] = set()
    for check in checks:
        pool = [r for r in records if id(r) not in schema_bad]
        for rj in check(pool, graph):
            t = _record_type(rj.record)
            rid = str(rj.record.get("id"))
            failures[t].append({"id": rid, "check": rj.check, "reason": rj.reason})
            failed_ids[t].add(rid)
            by_check[t][rj.check] += 1
            if isinstance(check, AnswerPresentCheck):
                schema_bad.add(id(rj.record))
    per_type: dict[str, dict[str, Any]] = {}
    counts = Counter(_record_type(r) for r in records)
    for t in sorted(counts):
        per_type[t] = {
            "n": counts[t],
            "passed": counts[t] - len(failed_ids[t]),
            "failed": len(failed_ids[t]),
            "failed_by": dict(sorted(by_check[t].items())),
            "failures": failures[t],
        }
    return per_type, failed_ids


def _ds_options_check(
    records: Sequence[dict], cue_threshold: float, cue_min_n: int
) -> dict[str, Any] | None:
    """The DS set check (the gold cannot be picked from the options alone), None without DS."""
    judged = f"enforced <= {cue_threshold} from n >= {cue_min_n}"
    ds = ds_option_balance(records)
    if not ds.n:
        return None
    bad = ds.n >= cue_min_n and ds.accuracy > cue_threshold
    detail = (
        f"n={ds.n}, best option rule accuracy {ds.accuracy:.3f} ({ds.rule or 'chance'}; "
        f"{judged if ds.n >= cue_min_n else 'not judged: n < ' + str(cue_min_n)})"
    )
    return {
        "ok": not bad,
        "judged": ds.n >= cue_min_n,
        "detail": detail + ("; the gold can be picked from the options alone" if bad else ""),
        "cue": asdict(ds),
    }
