"""The benchmark pipeline: questions -> base answers -> forget/retain split -> unlearn -> evaluate -> attack.

:class:`Benchmark` holds one run's shared parts (configuration, cell store, timer, the base model,
the engines, the judges) and sequences the stages; each stage lives in its own module
(:mod:`.questions`, :mod:`.evaluation`, :mod:`.unlearning`, :mod:`.attacking`, :mod:`.bbh`,
:mod:`.judging`), and takes the run as a narrow protocol (``EvaluationHost``, ``AttackHost``,
``BBHHost``, ``JudgingHost``, ``UnlearningHost``), never this module: no stage imports the
pipeline. :mod:`.scoring` and :mod:`.results` turn the cells into numbers and results.json and
run nothing. Every stage result is a cell in
:class:`~leakres_cli.scale.store.CellStore`; a rerun with the same configuration and output directory
reuses finished cells, so an interrupted grid resumes where it stopped.

The methods below are the stages' entry points (a test may replace ``model``, ``answer``,
``unlearn`` or ``judge`` on the class; every stage calls them through the run).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from leakres_cli.config.resolve import ResolvedRun, settle
from leakres_cli.config.run_checks import bbh_data
from leakres_cli.config.run_config import RunConfig
from leakres_cli.models.engines import hardware_record
from leakres_cli.progress import StageTimer, advance, stage_bar
from leakres_cli.records import FactKey, Record, fact_key, question_options
from leakres_cli.scale.store import CellStore, cell_keys
from leakres_cli.stages import attacking, evaluation, judging, trajectory
from leakres_cli.stages import bbh as bbh_stage
from leakres_cli.stages.answering import decoding_protocol, greedy_answers
from leakres_cli.stages.budget_ladders import ladders, never_known, run_method_cells
from leakres_cli.stages.curve_scores import extra_scores
from leakres_cli.stages.evaluation import check_sizes, run_sizes, select_facts
from leakres_cli.stages.questions import build_questions
from leakres_cli.stages.results import Selection, results_record, selection
from leakres_cli.stages.scoring import MethodCells, score_method, successfully_unlearned_ids
from leakres_cli.stages.seeds import score_seeds
from leakres_cli.stages.unlearning import UnlearnedModel, training_summary, unlearn

# Re-exported: the names tests, benchmarks and tuning.py import from here.
__all__ = [
    "Benchmark",
    "FactKey",
    "Record",
    "UnlearnedModel",
    "check_sizes",
    "fact_key",
    "question_options",
    "run_sizes",
    "select_facts",
    "training_summary",
]


class Benchmark:
    """One configured run writing into ``out_dir``."""

    def __init__(
        self,
        cfg: RunConfig | ResolvedRun,
        out_dir: Path,
        *,
        progress: bool = True,
        engine_options: dict[str, Any] | None = None,
    ) -> None:
        from leakres_cli.models.engines import GenerationRouter

        # A resolved run is taken as it is; a bare RunConfig is settled (checked) when it starts.
        self._resolved = cfg if isinstance(cfg, ResolvedRun) else None
        cfg = cfg.config if isinstance(cfg, ResolvedRun) else cfg
        self.cfg = cfg
        self.out_dir = out_dir
        self.progress = progress
        # keyed on the config and on the base model's weights (a model retrained in place reruns)
        key, earlier = cell_keys(
            self._resolved.fingerprint if self._resolved else cfg.fingerprint_dict()
        )
        self.store = CellStore(out_dir, key, self.weights_record, accepted=earlier)
        self.timer = StageTimer()
        self._model: Any = None
        self._replaced = False  # theta_p is no longer the loaded model (--base tuned|taught)
        self._tokenizer: Any = None
        self._judge: Any = None
        self.model_path: str | None = None
        # method -> unlearn-zoo callbacks of its next training (--eval-every: stages/trajectory.py)
        self.trajectory_callbacks: dict[str, list[Any]] = {}
        # Which engine decodes each model (in-process or a server per model): leakres_cli.models.engines.
        self.generation = GenerationRouter(
            cfg.engine,
            cfg.engine_cmd,
            out_dir=out_dir,
            prompts=cfg.engine_prompts,
            progress=progress,
            **(engine_options or {}),
        )

    # ------------------------------------------------------------------ the run's shared parts
    def model(self) -> tuple[Any, Any]:
        """The base model and tokenizer, loaded on first use (a resumed run may never need them)."""
        if self._model is None:
            self._model, self._tokenizer, self.model_path = self._load_pretrained()
            self.generation.register(self._model, "base", self.model_path)  # served from its path
        return self._model, self._tokenizer

    def replace_model(self, model: Any) -> None:
        """Make ``model`` the run's base model theta_p (``--base tuned|taught``: the taught copy)."""
        self.model()
        self.generation.release(self._model)
        self._model = model
        self._replaced = True
        self.generation.register(model, "base")

    def pretrained_model(self) -> tuple[Any, Any]:
        """The model as loaded, whatever :meth:`replace_model` did since: what every teaching
        (theta_p's and the control's) starts from. Loaded again once theta_p replaced it, rather
        than kept beside it (a second copy of the weights for the whole run)."""
        if not self._replaced:
            return self.model()
        model, tokenizer, _ = self._load_pretrained()
        return model, tokenizer

    def _load_pretrained(self) -> tuple[Any, Any, str]:
        from leakres_cli.models.catalog import load_model
        from leakres_cli.models.engines import resolve_dtype

        return load_model(self.cfg.model, dtype=resolve_dtype(self.cfg.dtype))

    def weights_record(self) -> dict[str, Any]:
        """``{role: digest}`` of the models whose weights the cells depend on (results.json's
        ``weights``): here the base model; the unlearned ones are trained from it by the run."""
        from leakres_cli.models.weights import model_digest

        return {"base": model_digest(self.cfg.model)}

    def decoding(self) -> dict[str, Any]:
        return decoding_protocol(self.cfg)

    def answer(self, model: Any, questions: Sequence[Record], desc: str) -> list[str]:
        if not questions:
            return []
        _, tokenizer = self.model()
        return greedy_answers(
            self.generation, model, tokenizer, questions, self.decoding(), progress=self.progress
        )

    def unlearn(
        self, method: str, forget: list[Record], retain: list[Record]
    ) -> tuple[Any, dict[str, Any]]:
        model, tokenizer = self.model()
        saved = self.out_dir / "models" / method if self.cfg.save_models else None
        return unlearn(
            self.cfg,
            model,
            tokenizer,
            method,
            forget,
            retain,
            progress=self.progress,
            output_dir=saved,
            tracking_dir=self.out_dir / "tracking",
            callbacks=self.trajectory_callbacks.get(method, ()),
        )

    def judge(
        self, questions: Sequence[Record], responses: Sequence[Sequence[str]]
    ) -> list[bool | None]:
        """The primary judge's verdict per question (:func:`.judging.judge_any`)."""
        if not questions:
            return []
        return judging.judge_any(self.primary_judge(), questions, responses)

    def primary_judge(self) -> Any:
        """The first --judge, built once per run (an LLM judge keeps its client, cache and usage)."""
        if self._judge is None:
            self._judge = self.get_judge(self.judge_names[0])
        return self._judge

    def judge_identity(self) -> dict[str, Any]:
        """The primary judge's :meth:`identity` as stored in each cell that holds its verdicts (a
        JSON round trip, so it compares equal to what a stored cell holds)."""
        return json.loads(json.dumps(self.primary_judge().identity(), default=str))

    def get_judge(self, name: str) -> Any:
        return judging.make_judge(self.cfg, self.out_dir, name)

    @property
    def judge_names(self) -> list[str]:
        if self._resolved is not None:
            return list(self._resolved.judges.names)
        return judging.judge_names(self.cfg)

    def resolved(self) -> ResolvedRun:
        """The run as resolved: given, or this bare config settled now (``config.resolve.settle``:
        the checks a run always made when it started; a one-line LeakresError)."""
        if self._resolved is None:
            self._resolved = settle(self.cfg)
        return self._resolved

    # ------------------------------------------------------------------ stages (cells)
    def build_questions(self) -> dict[str, Any]:
        return self.store.cached("questions", lambda: build_questions(self.cfg))

    def base_evaluation(self, questions: list[Record], reserve: list[Record]) -> dict[str, Any]:
        return evaluation.base_evaluation(self, questions, reserve)

    def evaluate_method(
        self, method: str, by_id: dict[str, Record], base: dict[str, Any], get_unlearned: Callable
    ) -> dict[str, Any]:
        return evaluation.evaluate_method(self, method, by_id, base, get_unlearned)

    def attack(
        self,
        method: str,
        attack: str,
        targets: list[Record],
        relearn: list[dict[str, str]],
        context: dict[str, list[dict[str, str]]],
        get_unlearned: Callable[[], Any],
    ) -> dict[str, Any]:
        return attacking.attack(self, method, attack, targets, relearn, context, get_unlearned)

    def bbh_data(self) -> dict[str, Any]:
        return self.resolved().bbh or bbh_data(self.cfg)  # BBH off: its empty record

    def bbh(self, name: str, get_model: Callable[[], Any]) -> dict[str, Any]:
        return bbh_stage.bbh(self, name, get_model)

    def check_judge_endpoints(self) -> None:
        judging.check_judge_endpoints(self)

    def judge_agreement(self, by_id: dict[str, Record], cells: dict[str, dict]) -> dict[str, Any]:
        return judging.judge_agreement(self, by_id, cells)

    # ------------------------------------------------------------------ orchestration
    def run(self) -> dict[str, Any]:
        try:
            results = self._run()
        finally:
            self.generation.close()  # no server outlives the run, even on an error or Ctrl-C
        results["engine"] = self.generation.describe()
        results["weights"] = self.store.weights()  # the content hashes the cells are keyed on
        if self.cfg.report_to != "none":  # the run's metrics to the tracker (--report-to)
            from leakres_cli.outputs.tracking import log_run_metrics

            log_run_metrics(results, self.cfg.report_to, self.out_dir / "tracking")
        return results

    def _run(self) -> dict[str, Any]:
        cfg, start, counted = self.cfg, time.perf_counter(), self.timer.read()
        run = self.resolved()  # nothing is checked again after this (config.resolve)
        if not run.endpoints_checked:  # one request per endpoint judge before any model work
            self.check_judge_endpoints()
        bbh_data = run.bbh
        stages = ["questions", "base model", *(f"{m}: unlearn/eval/attack" for m in cfg.methods)]
        bar = stage_bar(stages, self.progress)
        with self.timer.stage("questions"):
            data = self.build_questions()
        advance(bar, f"{len(data['questions'])} questions {data['counts']}")
        base_model = self.teach_base(data)
        with self.timer.stage("base_evaluation"):
            base = self.base_evaluation(data["questions"], data.get("sh_reserve", []))
        chosen = selection(cfg, data, base)
        if cfg.base == "taught":
            base_model["control"] = self._control(data, chosen, base)
        if cfg.save_models:  # `leakres eval` inputs that reproduce this run (external.py)
            from leakres_cli.outputs.run_facts import save_run_facts

            save_run_facts(self.out_dir / "models", data, chosen.forget, chosen.retain)
        bbh_base = None
        if cfg.bbh_tasks:
            with self.timer.stage("bbh:base"):
                bbh_base = self.bbh("bbh-base", lambda: self.model()[0])
        advance(bar, f"{len(chosen.forget)} forget / {len(chosen.retain)} retain facts")
        # every method at each --seeds seed (stages/seeds.py; one seed: the loop it always was)
        scores = score_seeds(self, chosen, base, bbh_base, lambda m: advance(bar, f"{m} done"))
        methods = scores.methods
        if bar is not None:
            bar.close()
        judges = self._judge_agreement(chosen.by_id, base)
        total = round(time.perf_counter() - start, 3)
        # Stages are timed exclusively; "other" (loading, bookkeeping) makes them add up to total.
        other = round(max(0.0, total - sum(self.timer.timings.values())), 3)
        timings = {**self.timer.timings, "other": other, "total": total}
        run_info = {"model_path": self.model_path, "decoding": self.decoding(), "bbh": bbh_data}
        run_info["profile"] = self.timer.totals(counted)  # wall/CPU s, tokens, steps per stage
        run_info["hardware"] = hardware_record(cfg.dtype)  # CPU, its bf16 features, the dtype
        record = results_record(
            cfg,
            questions_cell=data,
            base=base,
            chosen=chosen,
            run_info={**run_info, "timings_s": timings},
            methods=methods,
            judges=judges,
        )
        record["attack_budgets"] = {  # the ladders run (none: each attack at its one setting)
            "spec": cfg.attack_budgets,
            "ladders": {a: list(r) for a, r in ladders(cfg).items()},
        }
        if base_model is not None:  # a pretrained run's results.json is what it was before
            record["base_model"] = base_model
        record.update(scores.blocks(cfg, chosen, base))  # seeds, paired comparisons
        return record

    def teach_base(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """``--base tuned|taught``: theta_p taught (or loaded from the run's cache) before the
        base evaluation (:mod:`.base_stage`; `leakres tune` calls it too, so that its search runs
        on the run's theta_p); None for the pretrained model."""
        if self.cfg.base == "pretrained":
            return None
        from leakres_cli.stages.base_stage import prepare_base

        with self.timer.stage("teaching"):
            return prepare_base(self, data, (self.store.weights() or {})["base"].get("sha256"))

    def _control(self, data: dict[str, Any], chosen: Selection, base: dict[str, Any]) -> dict:
        """``--base taught``: the control model's per-type accuracy on the scored questions."""
        from leakres_cli.stages.base_stage import control_record, control_stage

        digest = (self.store.weights() or {})["base"].get("sha256")
        with self.timer.stage("teaching:control"):
            cell = control_stage(self, data, chosen.scored, digest)
        boot = {"seed": self.cfg.seed, "n_resamples": self.cfg.bootstrap}
        return control_record(cell, chosen.scored, base, boot)

    def score_cells(
        self,
        cells: MethodCells,
        chosen: Selection,
        base: dict[str, Any],
        bbh_base: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """One method's results.json block from its cells (bootstrap seeded with the run's seed)."""
        boot = {"seed": self.cfg.seed, "n_resamples": self.cfg.bootstrap}
        out = score_method(cells, chosen.by_id, base, chosen.scored, chosen.retain, bbh_base, boot)
        if cells.ladders is not None:  # --attack-budgets curves and the false-recovery controls
            out.update(extra_scores(cells.ladders, cells.s_suc, base, chosen.scored, out, boot))
        if cells.trajectory is not None:  # --eval-every: FQ per type, retain accuracy by step
            out["trajectory"] = trajectory.trajectory_scores(
                cells.trajectory, base, cells.evaluation, cells.record,
                out["fq_excluded_types"], boot,
            )  # fmt: skip
        return out

    def method_cells(self, method: str, chosen: Selection, base: dict[str, Any]) -> MethodCells:
        """One method's cells (run, or read back when finished): unlearn, evaluate, attack its
        S_suc, measure BBH (when the run has BBH on)."""
        cfg = self.cfg
        unlearned = UnlearnedModel(self, method, chosen.forget, chosen.retain)
        traj = trajectory.record_trajectory(self, method, chosen.scored, chosen.retain, unlearned)
        with self.timer.stage(f"{method}:eval"):
            ev = self.evaluate_method(method, chosen.by_id, base, unlearned)
        s_suc = successfully_unlearned_ids(base, ev, chosen.scored)
        targets = [chosen.by_id[i] for ids in s_suc.values() for i in ids]
        relearn = attacking.relearn_data(chosen.retain, chosen.scored["SH"])
        attacks = {}
        for attack in cfg.attacks:
            with self.timer.stage(f"{method}:attack:{attack}"):
                attacks[attack] = self.attack(
                    method, attack, targets, relearn, chosen.context, unlearned
                )
        # --attack-budgets ladders and the false-recovery controls (--no-controls: none)
        control_items = never_known(base, chosen.by_id, s_suc, cfg.seed) if cfg.controls else []
        extra = run_method_cells(
            self, method, targets, control_items, relearn, chosen.context, unlearned, self.timer
        )
        bbh_u = None
        if cfg.bbh_tasks:
            with self.timer.stage(f"{method}:bbh"):
                bbh_u = self.bbh(f"{method}/bbh", unlearned)
        unlearned.release()  # free the unlearned copy before the next method
        return MethodCells(
            method,
            unlearned.record,
            ev,
            attacks,
            bbh_u,
            s_suc=s_suc,
            ladders=extra,
            trajectory=traj,
        )

    def _judge_agreement(self, by_id: dict[str, Record], base: dict[str, Any]) -> dict | None:
        if len(self.judge_names) < 2:
            return None
        cells = {"base": base, **{m: self.store.get(f"{m}/eval") for m in self.cfg.methods}}
        with self.timer.stage("judge_agreement"):
            return self.judge_agreement(by_id, cells)
