"""The one judge interface, plus the helpers every judge shares (``judge_any``, ``agreement``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from leak_metrics.datatypes import JudgeItem, MultiResponseItem, Verdict


class Judge(ABC):
    """Decides whether each response states the gold answer.

    Implementations return one :class:`Verdict` per item, in order, with ``Verdict.id`` set to the
    item id. ``Verdict.correct is None`` means the item could not be judged; it must never be
    silently turned into "incorrect".
    """

    name: str = "judge"
    config_cls: ClassVar[type[Any] | None] = None
    """The dataclass of the judge's settings (None: the judge has none)."""
    needs_endpoint: ClassVar[bool] = False
    """The judge asks a model over the network (an OpenAI-compatible endpoint: a model name, a
    URL or a key), so a caller checks it before the work (``check_endpoint``)."""
    api_key_env_vars: ClassVar[tuple[str, ...]] = ()
    """The environment variables it reads its API key from, in order (none: it needs no key)."""

    @staticmethod
    def api_key_from_env() -> tuple[str, str] | None:
        """``(variable, key)`` it would use from the environment; None (also: needs none)."""
        return None

    @abstractmethod
    def judge(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        """Judge every item; the result has the same length and order as ``items``."""

    def describe(self) -> dict[str, Any]:
        """Settings recorded next to results (never contains secrets)."""
        return {"name": self.name}

    def identity(self) -> dict[str, Any]:
        """What decides this judge's verdicts (its rules or prompt version, model and settings; no
        running counters): a stored verdict may be reused only under an equal identity, so a
        caller that keeps verdicts (leakres' run cells) re-judges them when it changes."""
        return self.describe()


def judge_any(
    judge: Judge,
    items: Sequence[MultiResponseItem],
    *,
    mixed_unjudged_as_none: bool = False,
) -> list[Verdict]:
    """Collapse several responses per question into one verdict (the Probab rule).

    Correct when at least one response is judged correct; ``None`` (unjudged) when every response
    is unjudged; otherwise incorrect. When some responses are incorrect and others unjudged the
    default is *incorrect* with the unjudged count in the reason; pass
    ``mixed_unjudged_as_none=True`` to report such items as unjudged instead.
    All responses go to the judge in one batch so LLM judges can run them concurrently.
    """
    flat: list[JudgeItem] = []
    owners: list[int] = []
    for index, item in enumerate(items):
        for response in item.responses:
            flat.append(item.judge_item(response))
            owners.append(index)
    verdicts = judge.judge(flat) if flat else []
    grouped: list[list[Verdict]] = [[] for _ in items]
    for owner, verdict in zip(owners, verdicts, strict=True):
        grouped[owner].append(verdict)

    out: list[Verdict] = []
    for item, group in zip(items, grouped, strict=True):
        name = group[0].judge if group else judge.name
        correct_at = [i for i, v in enumerate(group) if v.correct is True]
        unjudged = sum(v.correct is None for v in group)
        if correct_at:
            first = correct_at[0]
            reason = f"response {first} of {len(group)} correct: {group[first].reason}"
            out.append(Verdict(True, reason, name, item.id))
        elif not group:
            out.append(Verdict(None, "no responses", name, item.id))
        elif unjudged == len(group):
            out.append(Verdict(None, f"all {len(group)} responses unjudged", name, item.id))
        elif unjudged and mixed_unjudged_as_none:
            reason = f"none correct among judged; {unjudged} of {len(group)} unjudged"
            out.append(Verdict(None, reason, name, item.id))
        else:
            reason = f"none of {len(group)} responses correct"
            if unjudged:
                reason += f" ({unjudged} unjudged)"
            out.append(Verdict(False, reason, name, item.id))
    return out


def agreement(verdicts_a: Sequence[Verdict], verdicts_b: Sequence[Verdict]) -> dict[str, Any]:
    """Cohen's kappa between two judges over the items both judged.

    The lists are paired by position (ids must match when both are set). Items unjudged by either
    side are left out of ``n`` and counted in ``n_unjudged``. Kappa is ``None`` when chance
    agreement is 1 (both judges gave one constant label), where it is undefined.
    """
    if len(verdicts_a) != len(verdicts_b):
        raise ValueError(f"verdict lists differ in length: {len(verdicts_a)} vs {len(verdicts_b)}")
    pairs: list[tuple[bool, bool]] = []
    disagreements: list[str | int] = []
    n_unjudged = 0
    for index, (a, b) in enumerate(zip(verdicts_a, verdicts_b, strict=True)):
        if a.id is not None and b.id is not None and a.id != b.id:
            raise ValueError(f"verdict {index}: ids differ ('{a.id}' vs '{b.id}')")
        if a.correct is None or b.correct is None:
            n_unjudged += 1
            continue
        pairs.append((a.correct, b.correct))
        if a.correct != b.correct:
            disagreements.append(a.id if a.id is not None else index)
    n = len(pairs)
    result: dict[str, Any] = {
        "cohen_kappa": None,
        "observed_agreement": None,
        "n": n,
        "n_unjudged": n_unjudged,
        "disagreements": disagreements,
    }
    if n == 0:
        result["kappa_undefined_reason"] = "no item judged by both judges"
        return result
    # Hand-written rather than sklearn's cohen_kappa_score: scipy + scikit-learn (44 MB) for four
    # lines; it agreed with it to 2.7e-15 on 1,965 random label pairs (README, "which interval").
    observed = sum(a == b for a, b in pairs) / n
    p_a = sum(a for a, _ in pairs) / n
    p_b = sum(b for _, b in pairs) / n
    expected = p_a * p_b + (1 - p_a) * (1 - p_b)
    result["observed_agreement"] = observed
    if expected >= 1.0:
        result["kappa_undefined_reason"] = "chance agreement is 1 (both judges constant)"
        return result
    result["cohen_kappa"] = (observed - expected) / (1 - expected)
    return result
