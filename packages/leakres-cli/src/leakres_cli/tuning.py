"""`leakres tune`: a seeded, resumable learning-rate x epochs (x TV alpha) search for one method.

The search runs on a **validation split** of facts the base model knows, disjoint from the forget
facts `leakres run` picks for the same configuration and seed: the run's selection is computed by
the pipeline itself (:meth:`Benchmark.base_evaluation`, stored as the ``base`` cell), and the
validation forget/retain facts are chosen from the other known facts by the pipeline's own
:func:`~leakres_cli.pipeline.select_facts`. Every trial is a cell directory
(``OUT/METHOD/trials/KEY/cells``); a rerun reuses finished trials and their finished stages.

Selection rule (:data:`RULE`), over the trials that forget something (single-hop Forget Quality
on the validation forget facts > 0; a trial that forgets nothing is no unlearning setting):

1. **Floor.** Among those whose retain-accuracy ratio (and BBH ratio, when BBH is on) is at least
   :data:`UTILITY_FLOOR` of the base, the highest FQ; ties go to the higher retain ratio, then the
   smaller lr, fewer epochs, smaller alpha (the gentler setting). ``floor_met: true``.
2. **Fallback**, when none meets the floor: the same floor taken against the grid's gentlest
   trial (smallest lr, then fewest epochs, smallest alpha) instead of the base model, the
   **relative floor** :data:`UTILITY_FLOOR` x its utility (the retain ratio; with BBH on, the
   lower of the two ratios), capped at the highest utility among the trials that forget so that
   one of them always reaches it; then the same rule: among the trials that forget at or above
   it, the highest FQ; ties go to the higher utility, then the gentler setting.
   ``floor_met: false``, and the command warns.

   Why not refuse: on a small model the floor can be out of reach of every trial and a run
   still needs a setting; the flag keeps that visible downstream. Why this floor: the retain
   ratio has a floor of its own that does not depend on how hard a trial unlearns. On
   SmolLM2-135M a 6-step GA run at lr 5e-6, which forgets nothing, already keeps only 11 of 16
   validation retain facts (the gold appears late in its long answers, and any weight change
   moves those tokens). The gentlest trial measures that cost on the split at hand, and the
   relative floor allows the paper's 10% loss on top of it. Two simpler fallbacks were tried on
   the real tables and drifted when the grid was centred on their own pick, so a default could
   not be reproduced by the search (leakres-cli README, "Tuning"): "the highest utility among
   trials that forget" moved TV to a setting that forgets 1 of 8 facts, and "the best harmonic
   mean of FQ and utility" moved GA to lr 4e-5 x 2, which keeps 8 of 16 retain facts.

No trial forgets anything: nothing is chosen (the command fails and keeps the table).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from .config import RunConfig
from .errors import LeakresError
from .pipeline import Benchmark, Record, UnlearnedModel, fact_key, select_facts
from .store import CellStore, fingerprint

UTILITY_FLOOR = 0.9
FLOOR_RULE = (
    "highest single-hop Forget Quality (SH FQ) on the validation forget facts among the trials "
    f"that forget something (SH FQ > 0) with retain-accuracy ratio >= {UTILITY_FLOOR:g} of the "
    f"base (and BBH ratio >= {UTILITY_FLOOR:g} when BBH is on); ties: higher retain ratio, then "
    "smaller lr, fewer epochs, smaller alpha"
)
FALLBACK_RULE = (
    "if no trial meets that floor (floor_met: false, with a warning): the same choice at a "
    f"relative floor, {UTILITY_FLOOR:g} x the utility (the retain ratio; with BBH on, the lower of "
    "the retain and BBH ratios) of the grid's gentlest trial (smallest lr, then fewest epochs, "
    "smallest alpha), capped at the highest utility among the trials that forget something: "
    "among the trials that forget something at or above it, the highest SH FQ; ties: higher "
    "utility, then smaller lr, fewer epochs, smaller alpha; if no trial forgets anything, none "
    "is chosen"
)
RULE = f"{FLOOR_RULE}; {FALLBACK_RULE}"
VALIDATION_RULE = (
    "known single-hop facts (base model correct) minus the forget facts `leakres run` selects for "
    "the same config and seed; of those, validation forget/retain facts by the run's own selection "
    "rule (select_facts: most multi-hop reach first, retain = neighbours), same seed"
)
#: the searched fields of every trial; ``alpha`` only for TV
SEARCHED = ("lr", "epochs", "alpha")
LR_FACTORS = (0.5, 1.0, 2.0)
TV_ALPHAS = (1.0, 4.0)
SETTINGS_PROVENANCE_KEY = "provenance"


@dataclasses.dataclass(frozen=True)
class Trial:
    """One grid point: the searched values (``alpha`` is None for methods other than TV)."""

    lr: float
    epochs: float
    alpha: float | None = None

    @property
    def key(self) -> str:
        parts = [f"lr={self.lr:g}", f"epochs={self.epochs:g}"]
        if self.alpha is not None:
            parts.append(f"alpha={self.alpha:g}")
        return "_".join(parts)

    def overrides(self) -> dict[str, float]:
        out = {"lr": self.lr, "epochs": self.epochs}
        if self.alpha is not None:
            out["alpha"] = self.alpha
        return out


def default_grid_values(method: str, defaults: dict[str, Any]) -> dict[str, tuple[float, ...]]:
    """Around unlearn-zoo's size-tier default: lr x {0.5, 1, 2}, epochs {ceil(default/2), default},
    TV's alpha over {1, 4} (the paper's search). Always holds the default itself."""
    if "lr" not in defaults or "epochs" not in defaults:
        raise LeakresError(
            f"unlearn-zoo has no lr/epochs default for '{method}' at this model size; "
            "pass --lr and --epochs"
        )
    lr, epochs = float(defaults["lr"]), float(defaults["epochs"])
    values = {
        "lr": tuple(lr * f for f in LR_FACTORS),
        "epochs": tuple(sorted({float(math.ceil(epochs / 2)), epochs})),
    }
    if method == "tv":
        values["alpha"] = tuple(sorted({*TV_ALPHAS, float(defaults.get("alpha", 1.0))}))
    return values


def build_grid(values: dict[str, tuple[float, ...]]) -> list[Trial]:
    for name in ("lr", "epochs"):
        if not values.get(name):
            raise LeakresError(f"--{name}: the grid is empty; give at least one value")
    if "alpha" in values and not values["alpha"]:
        raise LeakresError("--tv-alpha: the grid is empty; give at least one value")
    bad = [(n, v) for n, vs in values.items() for v in vs if not (v > 0 and math.isfinite(v))]
    if bad:
        name, value = bad[0]
        flag = "--tv-alpha" if name == "alpha" else f"--{name}"
        raise LeakresError(f"{flag}: {value:g} is not a positive number")
    alphas: tuple[float | None, ...] = values.get("alpha") or (None,)
    return [
        Trial(lr, ep, alpha)
        for lr in sorted(set(values["lr"]))
        for ep in sorted(set(values["epochs"]))
        for alpha in alphas
    ]


def utility(row: dict[str, Any]) -> float | None:
    """The utility the rule compares: the retain ratio, or with BBH on the lower of it and the BBH
    ratio (the floor asks both to reach it, so the fallback ranks by the one further from it);
    None when a ratio is undefined."""
    values = [row["retain_ratio"]["value"]]
    if row.get("bbh_ratio") is not None:
        values.append(row["bbh_ratio"]["value"])
    return None if any(v is None for v in values) else min(values)


def eligible(row: dict[str, Any]) -> bool:
    """The rule's floor (point estimates; an undefined ratio is not eligible)."""
    value = utility(row)
    return value is not None and value >= UTILITY_FLOOR


def forgets(row: dict[str, Any]) -> bool:
    """The trial forgot at least one validation forget fact (a defined SH FQ above 0)."""
    fq = row["fq_sh"]["value"]
    return fq is not None and fq > 0


def _gentler(row: dict[str, Any]) -> tuple[float, float, float]:
    return row["lr"], row["epochs"], row["alpha"] if row["alpha"] is not None else 0.0


def choose(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row :data:`FLOOR_RULE` selects, or None when no trial that forgets is eligible."""
    candidates = [r for r in rows if r["eligible"] and forgets(r)]
    if not candidates:
        return None
    return min(
        candidates,
        key=lambda r: (-r["fq_sh"]["value"], -r["retain_ratio"]["value"], *_gentler(r)),
    )


def relative_floor(rows: list[dict[str, Any]]) -> tuple[float, str, str] | None:
    """The fallback's floor and the trial it is taken against: :data:`UTILITY_FLOOR` x the utility
    of the gentlest trial with a defined utility, capped at the highest utility among the trials
    that forget: ``(value, trial key, "gentlest" | "cap")``; None when no trial forgets anything."""
    forgetting = [r for r in rows if forgets(r) and utility(r) is not None]
    if not forgetting:
        return None
    gentlest = min((r for r in rows if utility(r) is not None), key=_gentler)
    best_forgetting = max(forgetting, key=lambda r: (utility(r), *(-v for v in _gentler(r))))
    if UTILITY_FLOOR * utility(gentlest) <= utility(best_forgetting):
        return UTILITY_FLOOR * utility(gentlest), gentlest["key"], "gentlest"
    return utility(best_forgetting), best_forgetting["key"], "cap"


def choose_fallback(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row :data:`FALLBACK_RULE` selects (the floor rule at :func:`relative_floor`), or None
    when no trial forgets anything."""
    floor = relative_floor(rows)
    if floor is None:
        return None
    candidates = [
        r for r in rows if forgets(r) and utility(r) is not None and utility(r) >= floor[0]
    ]
    return min(candidates, key=lambda r: (-r["fq_sh"]["value"], -utility(r), *_gentler(r)))


def select(rows: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, bool]:
    """:data:`RULE`: ``(chosen row or None, floor_met)``."""
    chosen = choose(rows)
    if chosen is not None:
        return chosen, True
    return choose_fallback(rows), False


class TuneSearch:
    """The search of one method on the validation split, into ``out_dir`` (see module doc)."""

    def __init__(
        self,
        cfg: RunConfig,
        method: str,
        out_dir: Path,
        *,
        n_val_forget: int,
        n_val_retain: int,
        grid_values: dict[str, tuple[float, ...]] | None,
        progress: bool = True,
    ) -> None:
        # The base cells hold no method: GA's and NPO's searches in one --out share them.
        self.cfg = dataclasses.replace(cfg, methods=(), attacks=(), method_overrides={})
        self.method = method
        self.out_dir = out_dir
        self.n_val_forget, self.n_val_retain = n_val_forget, n_val_retain
        self.user_grid = grid_values
        self.progress = progress
        self.base = Benchmark(self.cfg, out_dir, progress=progress)
        self.store = self.base.store

    # ------------------------------------------------------------------ validation split
    def n_params(self) -> int:
        """The model's parameter count (a cell: a resumed search need not load the model)."""
        cached = self.store.get("model-size")
        if cached is None:
            model, _ = self.base.model()
            cached = {"n_params": sum(p.numel() for p in model.parameters())}
            self.store.put("model-size", cached)
        return int(cached["n_params"])

    def validation_split(self) -> dict[str, Any]:
        """The run's forget selection (the pipeline's base cell) and the validation facts beside it."""
        name = f"validation-{self.n_val_forget}-{self.n_val_retain}"
        cached = self.store.get(name)
        if cached is not None:
            return cached
        data = self.base.build_questions()
        questions, reserve = data["questions"], data.get("sh_reserve", [])
        by_id = {q["id"]: q for q in questions + reserve}
        run_base = self.base.base_evaluation(questions, reserve)  # exactly what `leakres run` picks
        run_forget = set(run_base["forget_ids"])
        sh = self.base.store.get("base-single-hop")
        answers, correct = dict(sh["answers"]), dict(sh["correct"])
        wanted = self.n_val_forget + self.n_val_retain
        known = [i for i in sh["asked_ids"] if correct[i] is True and i not in run_forget]
        unasked = [q for q in reserve if q["id"] not in correct]
        widened = False
        if len(known) < wanted and unasked:
            # Too few known facts beside the run's: ask the rest of the knowledge base (a cell).
            widened = True
            extra = self.base_answers("validation-single-hop", unasked)
            answers.update(extra["answers"])
            correct.update(extra["correct"])
            known += [q["id"] for q in unasked if extra["correct"][q["id"]] is True]
        if len(known) < wanted:
            raise LeakresError(
                f"the base model knows {len(known)} single-hop facts besides the run's "
                f"{len(run_forget)} forget facts, fewer than --val-forget {self.n_val_forget} + "
                f"--val-retain {self.n_val_retain} = {wanted}; lower them (the base answers are saved)"
            )
        multi = [q for q in questions if q["type"] != "SH"]
        forget, retain = select_facts(
            [by_id[i] for i in known], multi, self.n_val_forget, self.n_val_retain, self.cfg.seed
        )
        payload = {
            "rule": VALIDATION_RULE,
            "run_forget_ids": run_base["forget_ids"],
            "forget_ids": [q["id"] for q in forget],
            "retain_ids": [q["id"] for q in retain],
            "forget_facts": [q["target"] for q in forget],
            "retain_facts": [q["target"] for q in retain],
            "base_correct": {q["id"]: correct[q["id"]] for q in forget + retain},
            "n_known_besides_run_forget": len(known),
            "widened_to_every_fact": widened,
        }
        overlap = {fact_key(by_id[i]["target"]) for i in run_forget} & {
            fact_key(q["target"]) for q in forget
        }
        if overlap:  # select_facts only sees the other facts; this is a guard, not a filter
            raise LeakresError(f"internal: validation forget facts overlap the run's: {overlap}")
        self.store.put(name, payload)
        return payload

    def base_reference(self, split: dict[str, Any], by_id: dict[str, Record]) -> dict[str, Any]:
        """The base model on the validation questions under the trials' exact protocol (a cell).

        Acc_p of FQ and of the retain ratio: the same questions in the same order and batches as
        each trial's evaluation, so a batch-composition effect of greedy decoding is not counted
        as forgetting or as damage."""
        ids = split["forget_ids"] + split["retain_ids"]
        return self.base_answers(
            f"validation-base-{self.n_val_forget}-{self.n_val_retain}", [by_id[i] for i in ids]
        )

    def base_answers(self, name: str, questions: list[Record]) -> dict[str, Any]:
        cached = self.store.get(name)
        if cached is not None:
            return cached
        model, _ = self.base.model()
        answers = self.base.answer(model, questions, f"base ({name})")
        correct = self.base.judge(questions, [[a] for a in answers])
        payload = {
            "answers": {q["id"]: a for q, a in zip(questions, answers, strict=True)},
            "correct": {q["id"]: c for q, c in zip(questions, correct, strict=True)},
        }
        self.store.put(name, payload)
        return payload

    # ------------------------------------------------------------------ trials
    def defaults(self) -> dict[str, Any]:
        from unlearn_zoo import default_overrides

        return default_overrides(self.method, self.n_params())

    def grid(self) -> tuple[dict[str, tuple[float, ...]], list[Trial]]:
        values = default_grid_values(self.method, self.defaults())
        for name, given in (self.user_grid or {}).items():
            if given is not None:
                values[name] = given
        return values, build_grid(values)

    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        self.base.check_judge_endpoints()
        bbh_on = bool(self.cfg.bbh_tasks)
        bbh_data = self.base.bbh_data() if bbh_on else None  # missing data fails up front
        split = self.validation_split()
        values, trials = self.grid()
        defaults = self.defaults()
        by_id = self.questions_by_id()
        forget = [by_id[i] for i in split["forget_ids"]]
        retain = [by_id[i] for i in split["retain_ids"]]
        bbh_base = self.base.bbh("bbh-base", lambda: self.base.model()[0]) if bbh_on else None
        base_eval = self.base_reference(split, by_id)
        search_fp = fingerprint(
            {"config": self.cfg.fingerprint_dict(), "method": self.method,
             "validation": [split["forget_ids"], split["retain_ids"]], "defaults": defaults,
             "grid": [t.key for t in trials], "rule": RULE}
        )  # fmt: skip
        rows = []
        for index, trial in enumerate(trials, 1):
            if self.progress:
                print(f"[tune {self.method}] trial {index}/{len(trials)}: {trial.key}", flush=True)
            rows.append(
                self.trial(trial, defaults, split, forget, retain, by_id, bbh_base, base_eval)
            )
        chosen, floor_met = select(rows)
        relaxed = None if floor_met else relative_floor(rows)
        from leak_metrics import accuracy

        boot = {"seed": self.cfg.seed, "n_resamples": self.cfg.bootstrap}
        default_trial = Trial(
            float(defaults["lr"]), float(defaults["epochs"]),
            float(defaults.get("alpha", 1.0)) if "alpha" in values else None,
        )  # fmt: skip
        settings = None
        if chosen is not None:
            settings = {
                **defaults,
                **Trial(chosen["lr"], chosen["epochs"], chosen["alpha"]).overrides(),
            }
        return {
            "leakres_version": metadata.version("leakres-cli"),
            "method": self.method,
            "model": self.cfg.model,
            "seed": self.cfg.seed,
            "config": self.cfg.fingerprint_dict(),
            "rule": RULE,
            "utility_floor": UTILITY_FLOOR,
            "floor_met": floor_met,
            # The fallback's floor and the trial that set it (None when the floor was met).
            "relative_floor": None
            if relaxed is None
            else {"value": relaxed[0], "trial": relaxed[1], "basis": relaxed[2]},
            "bbh": bbh_data,
            "validation": {
                "rule": split["rule"],
                "n_forget": len(forget),
                "n_retain": len(retain),
                "forget_facts": split["forget_facts"],
                "retain_facts": split["retain_facts"],
                "n_run_forget_facts_excluded": len(split["run_forget_ids"]),
                "run_forget_facts": [by_id[i]["target"] for i in split["run_forget_ids"]],
                "n_known_besides_run_forget": split["n_known_besides_run_forget"],
                "widened_to_every_fact": split["widened_to_every_fact"],
                # Acc_p of the rule's ratios: the base model under the trials' protocol.
                "base_accuracy_forget": accuracy(
                    [base_eval["correct"][i] for i in split["forget_ids"]], **boot
                ).to_dict(),
                "base_accuracy_retain": accuracy(
                    [base_eval["correct"][i] for i in split["retain_ids"]], **boot
                ).to_dict(),
            },
            "unlearn_zoo_defaults": defaults,
            "default_trial": default_trial.key,
            "default_in_grid": default_trial.key in {t.key for t in trials},
            "grid": {k: list(v) for k, v in values.items()},
            "trials": rows,
            "chosen": chosen,
            "settings": settings,
            "fingerprint": search_fp,
            "wall_s": round(time.perf_counter() - started, 3),
        }

    def questions_by_id(self) -> dict[str, Record]:
        data = self.base.build_questions()
        return {q["id"]: q for q in data["questions"] + data.get("sh_reserve", [])}

    def trial(
        self,
        trial: Trial,
        defaults: dict[str, Any],
        split: dict[str, Any],
        forget: list[Record],
        retain: list[Record],
        by_id: dict[str, Record],
        bbh_base: dict[str, Any] | None,
        base_eval: dict[str, Any],
    ) -> dict[str, Any]:
        """One trial (a cell directory): unlearn the validation forget facts, evaluate, score.

        The metrics are recomputed from the stored cells on every call (cheap), so a change of
        the reference (``base_eval``) never leaves a stale row."""
        from leak_metrics import forget_quality, utility_ratio

        method = self.method
        trial_cfg = dataclasses.replace(
            self.cfg, methods=(method,), method_overrides={method: trial.overrides()}
        )
        trial_dir = self.out_dir / method / "trials" / trial.key
        bench = Benchmark(trial_cfg, trial_dir, progress=self.progress)
        # Keyed on the trial's config AND its validation facts: another split recomputes it.
        bench.store = CellStore(
            trial_dir,
            fingerprint(
                {"config": trial_cfg.fingerprint_dict(),
                 "validation": [split["forget_ids"], split["retain_ids"]]}
            ),
        )  # fmt: skip
        stored = bench.store.get("trial")
        started = time.perf_counter()
        # The base model is loaded at most once per search, on first need, and shared (unlearn-zoo
        # trains a deep copy); a trial whose stages are all stored loads nothing.
        bench.model = self.base.model  # type: ignore[method-assign]
        unlearned = UnlearnedModel(bench, method, forget, retain)
        eval_ids = {"forget_ids": split["forget_ids"], "multi_hop_ids": [],
                    "retain_ids": split["retain_ids"]}  # fmt: skip
        ev = bench.evaluate_method(method, by_id, eval_ids, unlearned)
        boot = {"seed": self.cfg.seed, "n_resamples": self.cfg.bootstrap}
        base_correct = base_eval["correct"]

        def pair(ids: list[str]) -> tuple[list[bool | None], list[bool | None]]:
            return [base_correct[i] for i in ids], [ev["correct"][i] for i in ids]

        fq = forget_quality(*pair(split["forget_ids"]), **boot).to_dict()
        retain_ratio = utility_ratio(*pair(split["retain_ids"]), **boot).to_dict()
        bbh_ratio = None
        if bbh_base is not None:
            bbh_u = bench.bbh(f"{method}/bbh", unlearned)
            bbh_ratio = utility_ratio(bbh_base["correct"], bbh_u["correct"], **boot).to_dict()
        if unlearned.record is None:  # every stage was stored but the unlearn record was not
            unlearned()
        unlearned.release()
        row: dict[str, Any] = {
            "key": trial.key,
            "lr": trial.lr,
            "epochs": trial.epochs,
            "alpha": trial.alpha,
            "fq_sh": fq,
            "retain_ratio": retain_ratio,
            "bbh_ratio": bbh_ratio,
            "unlearn_config": (unlearned.record or {}).get("config"),
            "steps": (unlearned.record or {}).get("steps"),
        }
        row["eligible"] = eligible(row)
        # Wall time of the trial's first computation (a resumed trial only re-reads its cells).
        row["wall_s"] = stored["wall_s"] if stored else round(time.perf_counter() - started, 3)
        bench.store.put("trial", row)
        return row


# ---------------------------------------------------------------------- output
def _metric(m: dict[str, Any] | None) -> str:
    if m is None:
        return "-"
    if m["value"] is None:
        return "undefined"
    ci = "" if m.get("ci_low") is None else f" [{m['ci_low']:.2f}, {m['ci_high']:.2f}]"
    return f"{m['value']:.2f}{ci}"


def render_markdown(result: dict[str, Any]) -> str:
    bbh_on = result["bbh"] is not None
    v = result["validation"]
    lines = [
        f"# leakres tune: {result['method']} on {result['model']} (seed {result['seed']})",
        "",
        f"Validation split: {v['n_forget']} forget / {v['n_retain']} retain facts, disjoint from the "
        f"run's {v['n_run_forget_facts_excluded']} forget facts ({v['rule']}).",
        f"Base model on them under the trials' protocol: forget accuracy "
        f"{_metric(v['base_accuracy_forget'])}, retain accuracy {_metric(v['base_accuracy_retain'])}.",
        f"Rule: {result['rule']}.",
        f"unlearn-zoo default: {result['default_trial']} (in the grid: "
        f"{'yes' if result['default_in_grid'] else 'no'}).",
        "",
        "| trial | lr | epochs | alpha | SH FQ [95% CI] | retain ratio [95% CI] |"
        + (" BBH ratio [95% CI] |" if bbh_on else "")
        + " eligible | wall s |",
        "|---|---|---|---|---|---|" + ("---|" if bbh_on else "") + "---|---|",
    ]
    chosen_key = result["chosen"]["key"] if result["chosen"] else None
    for row in result["trials"]:
        mark = " **chosen**" if row["key"] == chosen_key else ""
        alpha = "-" if row["alpha"] is None else f"{row['alpha']:g}"
        bbh = f" {_metric(row['bbh_ratio'])} |" if bbh_on else ""
        lines.append(
            f"| {row['key']}{mark} | {row['lr']:g} | {row['epochs']:g} | {alpha} | "
            f"{_metric(row['fq_sh'])} | {_metric(row['retain_ratio'])} |{bbh} "
            f"{'yes' if row['eligible'] else 'no'} | {row['wall_s']:.1f} |"
        )
    lines.append("")
    if result["chosen"] is None:
        lines.append(
            "No trial forgot any validation forget fact: nothing chosen, no settings file."
        )
    else:
        how = (
            "by the floor (floor_met: true)"
            if result["floor_met"]
            else f"by the fallback (floor_met: false, no trial met the floor: {floor_text(result)}"
            f"{relative_text(result)})"
        )
        lines.append(f"Chosen {how}: {chosen_key}; settings: `{json.dumps(result['settings'])}`.")
    return "\n".join(lines) + "\n"


def relative_text(result: dict[str, Any]) -> str:
    """For a fallback pick, "; relative floor: utility >= 0.62 (0.9 x that of the gentlest trial,
    TRIAL)"; "" when the floor was met."""
    relaxed = result["relative_floor"]
    if relaxed is None:
        return ""
    basis = (
        f"{result['utility_floor']:g} x that of the gentlest trial, {relaxed['trial']}"
        if relaxed["basis"] == "gentlest"
        else f"capped at the highest among the trials that forget, {relaxed['trial']}'s"
    )
    return f"; relative floor: utility >= {relaxed['value']:.2f} ({basis})"


def floor_text(result: dict[str, Any]) -> str:
    floor = f"{result['utility_floor']:g}"
    bbh = f" and BBH ratio >= {floor}" if result["bbh"] is not None else ""
    return f"retain ratio >= {floor}{bbh} of the base"


def settings_file(result: dict[str, Any]) -> dict[str, Any]:
    """``{method: {field: value}, "provenance": {...}}``: what `leakres run --method-config` reads."""
    return {
        result["method"]: result["settings"],
        SETTINGS_PROVENANCE_KEY: {
            "written_by": "leakres tune",
            "model": result["model"],
            "seed": result["seed"],
            "rule": result["rule"],
            "chosen_trial": result["chosen"]["key"],
            "floor_met": result["floor_met"],
            "relative_floor": result["relative_floor"],
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "search_fingerprint": result["fingerprint"],
        },
    }


def load_method_config(paths: tuple[Path, ...], methods: tuple[str, ...]) -> dict[str, dict]:
    """Per method, the settings of `leakres tune` settings files (one-line errors name file/key)."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise LeakresError(f"--method-config {path}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise LeakresError(f"--method-config {path}: not JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise LeakresError(
                f"--method-config {path}: expected an object {{method: {{field: value}}}}"
            )
        for method, fields in data.items():
            if method == SETTINGS_PROVENANCE_KEY:
                continue
            if not isinstance(fields, dict):
                raise LeakresError(
                    f"--method-config {path}: '{method}' must be an object of field: value, "
                    f"got {type(fields).__name__}"
                )
            if method not in methods:
                raise LeakresError(
                    f"--method-config {path}: method '{method}' is not among --methods "
                    f"({', '.join(methods)}); add it there or leave the file out"
                )
            if method in out:
                raise LeakresError(f"--method-config {path}: '{method}' is set by another file too")
            out[method] = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    return out
