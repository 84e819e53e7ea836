"""The benchmark pipeline: questions -> base answers -> forget/retain split -> unlearn -> evaluate -> attack.

Every stage result is a cell in :class:`~leakres_cli.store.CellStore`; a rerun with the same configuration
and output directory reuses finished cells, so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from .config import RunConfig
from .errors import LeakresError
from .store import CellStore, fingerprint

Record = dict[str, Any]
FactKey = tuple[str, str, str]


def fact_key(fact: dict[str, str]) -> FactKey:
    return (fact["subject"], fact["relation"], fact["object"])


def question_options(question: Record) -> tuple[str, ...]:
    """The record's answer options (multiple-choice questions), ``()`` when the field is absent."""
    options = question.get("options")
    if options is None:
        return ()
    if not isinstance(options, (list, tuple)) or not all(isinstance(o, str) for o in options):
        raise LeakresError(
            f"question '{question.get('id')}': field 'options' must be a list of strings, "
            f"got {options!r}"
        )
    return tuple(options)


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


def library_versions() -> dict[str, str]:
    names = [
        "leakres-cli",
        "kg-qgen",
        "unlearn-zoo",
        "recover-attacks",
        "leak-metrics",
        "torch",
        "transformers",
        "peft",
        "trl",
        "datasets",
        "accelerate",
        "bitsandbytes",
    ]
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


@dataclass
class StageTimer:
    """Wall time per stage, reported in results.json."""

    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - start, 3)


class UnlearnedModel:
    """The unlearned model of one method, trained on first use only.

    When every cell that needs the model is already stored (a resumed run), no training happens.
    """

    def __init__(
        self, bench: Benchmark, method: str, forget: list[Record], retain: list[Record]
    ) -> None:
        self.bench, self.method, self.forget, self.retain = bench, method, forget, retain
        self._model: Any = None
        self.record: dict[str, Any] | None = bench.store.get(f"{method}/unlearn")

    def __call__(self) -> Any:
        if self._model is None:
            with self.bench.timer.stage(f"{self.method}:unlearn"):
                self._model, self.record = self.bench.unlearn(self.method, self.forget, self.retain)
            self.bench.store.put(f"{self.method}/unlearn", self.record)
            self.bench.generation.register(self._model, self.method)
        return self._model

    def release(self) -> None:
        if self._model is not None:
            self.bench.generation.release(self._model)  # stops its server, if one runs
        self._model = None


class Benchmark:
    """One configured run writing into ``out_dir``."""

    def __init__(
        self,
        cfg: RunConfig,
        out_dir: Path,
        *,
        progress: bool = True,
        engine_options: dict[str, Any] | None = None,
    ) -> None:
        from .engines import GenerationRouter

        self.cfg = cfg
        self.out_dir = out_dir
        self.progress = progress
        self.store = CellStore(out_dir, fingerprint(cfg.fingerprint_dict()))
        self.timer = StageTimer()
        self._model: Any = None
        self._tokenizer: Any = None
        self._judge: Any = None
        self.model_path: str | None = None
        # Which engine decodes each model (in-process or a server per model): leakres_cli.engines.
        self.generation = GenerationRouter(
            cfg.engine, cfg.engine_cmd, out_dir=out_dir, prompts=cfg.engine_prompts,
            progress=progress, **(engine_options or {}),
        )  # fmt: skip

    # ------------------------------------------------------------------ stages
    def build_questions(self) -> dict[str, Any]:
        """Multi-hop questions (balanced, ``per_type`` each) plus the SH question of every fact they reach.

        SH questions select the forget facts, so every multi-hop target must have its SH question; further
        SH questions (seeded sample) fill up to ``sh_pool`` to give retain candidates.
        """
        cached = self.store.get("questions")
        if cached is not None:
            return cached
        import kg_qgen

        cfg = self.cfg
        graph = kg_qgen.load_source(cfg.source, cfg.source_path)
        multi_types = tuple(t for t in cfg.types if t != "SH")
        multi = (
            kg_qgen.build(graph, types=multi_types, per_type=cfg.per_type, seed=cfg.seed)
            if multi_types
            else None
        )
        single = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed)
        multi_questions = multi.questions if multi else []
        reached = {fact_key(q["target"]) for q in multi_questions}
        needed = [q for q in single.questions if fact_key(q["target"]) in reached]
        others = [q for q in single.questions if fact_key(q["target"]) not in reached]
        random.Random(cfg.seed).shuffle(others)
        n_pool_others = max(0, cfg.sh_pool - len(needed))
        sh = needed + others[:n_pool_others]
        questions = sh + multi_questions
        shortfall = dict(single.shortfall)
        if multi:
            shortfall.update(multi.shortfall)
        shortfall.pop("SH", None)  # SH is taken whole, then subsampled on purpose
        payload = {
            "questions": questions,
            "counts": dict(Counter(q["type"] for q in questions)),
            "shortfall": shortfall,
            "n_rejects": len(single.rejects) + (len(multi.rejects) if multi else 0),
            "n_facts": len(graph),
            # The SH questions of every other fact, in seeded order: asked only when the pool holds
            # fewer known facts than --n-forget + --n-retain (base_single_hop widens the pool).
            "sh_reserve": others[n_pool_others:],
        }
        self.store.put("questions", payload)
        return payload

    def model(self) -> tuple[Any, Any]:
        if self._model is None:
            from .engines import resolve_dtype
            from .models import load_model

            self._model, self._tokenizer, self.model_path = load_model(
                self.cfg.model, dtype=resolve_dtype(self.cfg.dtype)
            )
            self.generation.register(self._model, "base", self.model_path)  # served from its path
        return self._model, self._tokenizer

    def decoding(self) -> dict[str, Any]:
        """The run's one greedy decoding protocol: evaluation and every attack decode under it.

        A containment judge rewards longer answers, so an attack with a larger token budget than the
        evaluation would inflate RR; the attacks get these values (``attack_overrides``) and each
        attack cell records them. Stop rule: EOS only (no stop strings); prompts: the chat template.
        """
        return {
            "max_new_tokens": self.cfg.max_new_tokens,
            "batch_size": self.cfg.batch_size,
            "seed": self.cfg.seed,
            "stop": [],
            "chat_template": True,
        }

    def answer(self, model: Any, questions: Sequence[Record], desc: str) -> list[str]:
        """Greedy answers: in-process (recover_attacks.generate, continuous batching) or, with
        ``--engine openai``, from the model's server with the same prompts and decoding."""
        from recover_attacks import generate

        if not questions:
            return []
        _, tokenizer = self.model()
        protocol = self.decoding()
        server = self.generation.engine_for(model, tokenizer)
        if server is not None:
            from recover_attacks.engine import DecodingConfig

            config = DecodingConfig(
                max_new_tokens=protocol["max_new_tokens"], seed=protocol["seed"]
            )
            texts = self.generation.answer(server, [q["question"] for q in questions], config)
            return [responses[0] for responses in texts]
        outputs = generate(
            model,
            tokenizer,
            [q["question"] for q in questions],
            max_new_tokens=protocol["max_new_tokens"],
            batch_size=protocol["batch_size"],
            seed=protocol["seed"],
            stop=tuple(protocol["stop"]),
            chat_template=protocol["chat_template"],
            progress=self.progress,
        )
        return [responses[0] for responses in outputs]

    def judge(
        self, questions: Sequence[Record], responses: Sequence[Sequence[str]]
    ) -> list[bool | None]:
        """Per question, leak-metrics' ``judge_any`` (the Probab rule) with the primary judge.

        True if any response is correct; None (unjudged) if no response could be judged, and also
        when the judged responses are wrong but some are unjudged (``mixed_unjudged_as_none``): an
        unjudged sample may be the one that leaks, so such an item is never counted as "wrong".
        """
        from leak_metrics import judge_any

        if not questions:
            return []
        items = [judge_record(q, resp) for q, resp in zip(questions, responses, strict=True)]
        verdicts = judge_any(self.primary_judge(), items, mixed_unjudged_as_none=True)
        return [v.correct for v in verdicts]

    def primary_judge(self) -> Any:
        """The first --judge, built once per run (an LLM judge keeps its client, cache and usage)."""
        if self._judge is None:
            self._judge = self.get_judge(self.judge_names[0])
        return self._judge

    def rejudge(
        self,
        name: str,
        payload: dict[str, Any],
        verdict_key: str,
        by_id: dict[str, Record],
        responses_of: Callable[[str], list[str]],
    ) -> dict[str, Any]:
        """Re-judge the unjudged (None) verdicts of a stored cell; keep its answers; store the result.

        A finished cell must not freeze a judge outage: on resume only the judge runs again, only
        for the None verdicts (an LLM judge's cache answers nothing twice), and the cell is
        rewritten with the new verdicts. Verdicts still None stay None.
        """
        pending = [qid for qid, verdict in payload[verdict_key].items() if verdict is None]
        if not pending:
            return payload
        verdicts = self.judge(
            [by_id[qid] for qid in pending], [responses_of(qid) for qid in pending]
        )
        payload[verdict_key].update(zip(pending, verdicts, strict=True))
        payload["n_rejudged"] = payload.get("n_rejudged", 0) + len(pending)
        self.store.put(name, payload)
        return payload

    @property
    def judge_names(self) -> list[str]:
        return [n.strip() for n in self.cfg.judge.split(",") if n.strip()]

    def get_judge(self, name: str) -> Any:
        from leak_metrics import get_judge

        if name != "llm":
            return get_judge(name)
        kwargs: dict[str, Any] = {"cache_dir": str(self.out_dir / "judge-cache")}
        if self.cfg.judge_model:
            kwargs["model"] = self.cfg.judge_model
        if self.cfg.judge_base_url:
            kwargs["base_url"] = self.cfg.judge_base_url
        return get_judge(name, **kwargs)

    def check_judge_endpoints(self) -> None:
        """One request per LLM judge before any model work: a dead or unauthorised endpoint is a
        one-line error now, not minutes of decoding followed by nothing but unjudged verdicts."""
        from leak_metrics import JudgeEndpointError

        for name in self.judge_names:
            check = getattr(self.get_judge(name), "check_endpoint", None)
            if check is None:  # judges that call nothing (alias)
                continue
            try:
                check()
            except JudgeEndpointError as exc:
                raise LeakresError(f"judge '{name}': {exc}") from exc

    def judge_agreement(
        self, by_id: dict[str, Record], answer_cells: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        """Every extra judge re-judges the greedy answers; agreement with the primary judge (a cell)."""
        cached = self.store.get("judges")
        if cached is not None:
            return cached
        from leak_metrics import JudgeItem, agreement

        items = [
            JudgeItem(id=f"{cell}:{qid}", question=by_id[qid]["question"], answer=by_id[qid]["answer"],
                      aliases=tuple(by_id[qid].get("answer_aliases", [])),
                      options=question_options(by_id[qid]), response=response)
            for cell, table in answer_cells.items()
            for qid, response in table["answers"].items()
        ]  # fmt: skip
        primary_name, *others = self.judge_names
        primary = self.get_judge(primary_name).judge(items)
        payload: dict[str, Any] = {"primary": primary_name, "n_items": len(items), "agreement": {}}
        for name in others:
            judge = self.get_judge(name)
            verdicts = judge.judge(items)
            payload["agreement"][name] = {
                **agreement(primary, verdicts),
                "n_unjudged": sum(v.correct is None for v in verdicts),
                "usage": _usage(judge),
            }
        # Not stored while an endpoint failed: a rerun asks again for the unjudged items.
        if not any(a["n_unjudged"] for a in payload["agreement"].values()):
            self.store.put("judges", payload)
        return payload

    def base_single_hop(self, pool: list[Record], reserve: list[Record]) -> dict[str, Any]:
        """The base model's answers to the SH pool (a cell), widened to every fact when short.

        When the pool holds fewer known facts than --n-forget + --n-retain ask for, the SH
        questions of every other fact of the knowledge base (``reserve``) are asked too. Stored
        before the sizes are checked, so a run stopped for too few facts loses no answer.
        """
        name = "base-single-hop"
        by_id = {q["id"]: q for q in pool + reserve}
        cached = self.store.get(name)
        if cached is not None:
            return self.rejudge(name, cached, "correct", by_id, lambda i: [cached["answers"][i]])
        model, _ = self.model()
        needed = self.cfg.n_forget + self.cfg.n_retain
        asked = list(pool)
        answers = self.answer(model, asked, "base SH")
        correct = self.judge(asked, [[a] for a in answers])
        widened = False
        if sum(c is True for c in correct) < needed and reserve:
            widened = True
            more = self.answer(model, reserve, "base SH (widened pool)")
            answers += more
            correct += self.judge(reserve, [[a] for a in more])
            asked += reserve
        payload = {
            "asked_ids": [q["id"] for q in asked],
            "answers": {q["id"]: a for q, a in zip(asked, answers, strict=True)},
            "correct": {q["id"]: c for q, c in zip(asked, correct, strict=True)},
            "n_pool": len(pool),
            "widened": widened,
        }
        self.store.put(name, payload)
        return payload

    def base_evaluation(self, questions: list[Record], reserve: list[Record]) -> dict[str, Any]:
        """Ask the base model the SH questions, pick forget/retain facts, then ask the multi-hop ones.

        The selection is frozen in the cell (the unlearning and every evaluation depend on it);
        re-judging on resume updates verdicts, never the choice of facts.
        """
        cfg = self.cfg
        pool = [q for q in questions if q["type"] == "SH"]
        by_id = {q["id"]: q for q in questions + reserve}
        cached = self.store.get("base")
        if cached is not None:
            check_sizes(cached["sizes"], cfg)
            return self.rejudge("base", cached, "correct", by_id, lambda i: [cached["answers"][i]])
        sh = self.base_single_hop(pool, reserve)
        single = [by_id[i] for i in sh["asked_ids"]]
        known = [q for q in single if sh["correct"][q["id"]] is True]
        multi_all = [q for q in questions if q["type"] != "SH"]
        n_forget, n_retain = run_sizes(len(known), cfg)
        sizes = {
            "requested": {"n_forget": cfg.n_forget, "n_retain": cfg.n_retain},
            "actual": {"n_forget": n_forget, "n_retain": n_retain},
            "short": (n_forget, n_retain) != (cfg.n_forget, cfg.n_retain),
            "n_single_hop_known": len(known),
            "n_single_hop_asked": len(single),
            "n_single_hop_pool": sh["n_pool"],
            "widened_to_every_fact": sh["widened"],
        }
        check_sizes(sizes, cfg)
        forget, retain = select_facts(known, multi_all, n_forget, n_retain, cfg.seed)
        forget_keys = {fact_key(q["target"]) for q in forget}
        multi = [q for q in multi_all if fact_key(q["target"]) in forget_keys]
        model, _ = self.model()
        mh_answers = self.answer(model, multi, "base multi-hop")
        mh_correct = self.judge(multi, [[a] for a in mh_answers])
        answers = {**sh["answers"], **{q["id"]: a for q, a in zip(multi, mh_answers, strict=True)}}
        correct = {**sh["correct"], **{q["id"]: c for q, c in zip(multi, mh_correct, strict=True)}}
        payload = {
            "forget_ids": [q["id"] for q in forget],
            "retain_ids": [q["id"] for q in retain],
            "multi_hop_ids": [q["id"] for q in multi],
            "answers": answers,
            "correct": correct,
            "n_single_hop_asked": len(single),
            "n_single_hop_known": len(known),
            "sizes": sizes,
            "decoding": self.decoding(),
        }
        self.store.put("base", payload)
        return payload

    @staticmethod
    def unlearn_examples(records: Sequence[Record]) -> list[dict[str, Any]]:
        return [
            {
                "question": q["question"],
                "answer": q["answer"],
                "spans": [q["target"]["subject"], q["target"]["object"]],
            }
            for q in records
        ]

    def unlearn(self, method: str, forget: list[Record], retain: list[Record]) -> tuple[Any, dict]:
        from unlearn_zoo import default_overrides, get_unlearner

        model, tokenizer = self.model()
        # unlearn-zoo's per-model-size defaults first (the paper tunes per method and model), user --set on top.
        n_params = sum(p.numel() for p in model.parameters())
        overrides = {**default_overrides(method, n_params), "seed": self.cfg.seed}
        overrides.update(self.cfg.method_overrides.get(method, {}))
        unlearner = get_unlearner(method, **overrides)
        result = unlearner.unlearn(
            model,
            tokenizer,
            self.unlearn_examples(forget),
            self.unlearn_examples(retain),
            progress=self.progress,
        )
        result.model.eval()
        return result.model, result.record

    def evaluate_method(
        self,
        method: str,
        by_id: dict[str, Record],
        base: dict[str, Any],
        get_unlearned: Callable[[], Any],
    ) -> dict[str, Any]:
        name = f"{method}/eval"
        cached = self.store.get(name)
        if cached is not None:
            return self.rejudge(name, cached, "correct", by_id, lambda i: [cached["answers"][i]])
        ids = base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"]
        questions = [by_id[i] for i in ids]
        answers = self.answer(get_unlearned(), questions, f"{method} eval")
        correct = self.judge(questions, [[a] for a in answers])
        payload = {
            "answers": dict(zip(ids, answers, strict=True)),
            "correct": dict(zip(ids, correct, strict=True)),
            "decoding": self.decoding(),
        }
        self.store.put(name, payload)
        return payload

    def attack_decoding_conflicts(self) -> list[str]:
        """``--set ATTACK.max_new_tokens=N`` that differs from the run's budget (one protocol)."""
        budget = self.cfg.max_new_tokens
        return [
            f"--set {attack}.max_new_tokens={over['max_new_tokens']}"
            for attack, over in self.cfg.attack_overrides.items()
            if "max_new_tokens" in over and over["max_new_tokens"] != budget
        ]

    def make_attack(self, attack: str) -> Any:
        """The attack under the run's decoding protocol (its budget, batch size and seed).

        --set may still choose an attack's seed or batch size (the batch size never changes a
        response); its token budget is always the evaluation's (checked in :meth:`run`).
        """
        from recover_attacks import get_attack

        protocol = self.decoding()
        overrides = {
            "max_new_tokens": protocol["max_new_tokens"],
            "batch_size": protocol["batch_size"],
            "seed": protocol["seed"],
            **self.cfg.attack_overrides.get(attack, {}),
        }
        return get_attack(attack, **overrides)

    def attack(
        self,
        method: str,
        attack: str,
        targets: list[Record],
        relearn: list[dict[str, str]],
        context: dict[str, list[dict[str, str]]],
        get_unlearned: Callable[[], Any],
    ) -> dict[str, Any]:
        """One attack on S_suc (a cell). Empty S_suc: no model is needed, the settings still come
        from the attack's config dataclass, and RR is left to leak-metrics (undefined)."""
        name = f"{method}/attack-{attack}"
        by_id = {q["id"]: q for q in targets}
        cached = self.store.get(name)
        # Re-judged evaluation verdicts can change S_suc; a cell of another S_suc is recomputed.
        if cached is not None and set(cached["recovered"]) == set(by_id):
            return self.rejudge(name, cached, "recovered", by_id, lambda i: cached["responses"][i])
        atk = self.make_attack(attack)
        results = []
        if targets:  # probab/focus_on_key decode on the server with --engine openai
            base_model, tokenizer = self.model()
            results = self.generation.run_attack(
                atk,
                get_unlearned(),
                tokenizer,
                targets,
                original_model=base_model,
                relearn_data=relearn,
                context_facts=context,
                progress=self.progress,
            )
        by_result = {r.id: r for r in results}
        responses = [list(by_result[q["id"]].responses) for q in targets]
        recovered = self.judge(targets, responses)
        protocol = self.decoding()
        decoding = {
            "max_new_tokens": atk.config.max_new_tokens,
            "batch_size": atk.config.batch_size,
            "seed": atk.config.seed,
            "stop": protocol["stop"],
            "chat_template": protocol["chat_template"],
        }
        payload = {
            "settings": results[0].settings if results else atk.settings(),
            "decoding": decoding,
            "same_budget_as_evaluation": decoding["max_new_tokens"] == protocol["max_new_tokens"],
            "responses": {q["id"]: r for q, r in zip(targets, responses, strict=True)},
            "recovered": {q["id"]: ok for q, ok in zip(targets, recovered, strict=True)},
        }
        self.store.put(name, payload)
        return payload

    def bbh_data(self) -> dict[str, Any]:
        """Where BBH is read from: ``<data dir>/bbh`` (leak-metrics' layout), checked up front.

        The data dir is --data-dir, else ``$LEAKRES_DATA_DIR``; with neither, leak-metrics' own
        fallback applies (download into its cache). A missing file or unknown task stops the run
        here, before any model is loaded or trained.
        """
        from leak_metrics.bbh import BBH_TASKS

        tasks = list(BBH_TASKS) if self.cfg.bbh_tasks == ("all",) else list(self.cfg.bbh_tasks)
        unknown = [t for t in tasks if t not in BBH_TASKS]
        if unknown:
            raise LeakresError(f"unknown BBH task(s) {unknown}; known: {', '.join(BBH_TASKS)}")
        root = self.cfg.data_dir or os.environ.get("LEAKRES_DATA_DIR")
        if not root:
            return {"tasks": tasks, "data_dir": None, "source": "auto"}
        bbh_dir = Path(root) / "bbh"
        missing = [
            path
            for task in tasks
            for path in (bbh_dir / "bbh" / f"{task}.json", bbh_dir / "cot-prompts" / f"{task}.txt")
            if not path.is_file()
        ]
        if missing:
            raise LeakresError(
                f"BBH file {missing[0]} not found ({len(missing)} missing): the data dir "
                f"{root} (--data-dir or LEAKRES_DATA_DIR) must hold bbh/bbh/<task>.json and "
                "bbh/cot-prompts/<task>.txt"
            )
        return {"tasks": tasks, "data_dir": str(bbh_dir), "source": "local"}

    def bbh(self, name: str, get_model: Callable[[], Any]) -> dict[str, Any]:
        """BIG-Bench-Hard answers of the model (a cell), for the utility ratio."""
        cached = self.store.get(name)
        if cached is not None:
            return cached
        from leak_metrics.bbh import evaluate_bbh

        cfg = self.cfg
        data = self.bbh_data()
        _, tokenizer = self.model()
        result = evaluate_bbh(
            get_model(),
            tokenizer,
            tasks=data["tasks"],
            limit=cfg.bbh_limit or None,
            batch_size=cfg.batch_size,
            seed=cfg.seed,
            cot=cfg.bbh_cot,
            data_dir=data["data_dir"],
            source=data["source"],
        )
        payload = {
            "correct": result.correct,
            "overall": result.overall.to_dict(),
            "per_task": {t: m.to_dict() for t, m in result.per_task.items()},
            "config": result.config,
            "data": data,
            "wall_time": result.wall_time,
        }
        self.store.put(name, payload)
        return payload

    # ------------------------------------------------------------------ orchestration
    def run(self) -> dict[str, Any]:
        try:
            results = self._run()
        finally:
            self.generation.close()  # no server outlives the run, even on an error or Ctrl-C
        results["engine"] = self.generation.describe()
        return results

    def _run(self) -> dict[str, Any]:
        cfg = self.cfg
        start = time.perf_counter()
        conflicts = self.attack_decoding_conflicts()
        if conflicts:
            raise LeakresError(
                f"{conflicts[0]} differs from the evaluation's --max-new-tokens {cfg.max_new_tokens}: "
                "attacks decode with the evaluation's budget (a longer answer is more likely to "
                "contain the gold); change --max-new-tokens for both instead"
            )
        self.check_judge_endpoints()
        bbh_data = self.bbh_data() if cfg.bbh_tasks else None  # fail on missing data up front
        stages = ["questions", "base model", *(f"{m}: unlearn/eval/attack" for m in cfg.methods)]
        bar = _stage_bar(stages, self.progress)

        with self.timer.stage("questions"):
            data = self.build_questions()
        questions: list[Record] = data["questions"]
        reserve: list[Record] = data.get("sh_reserve", [])
        by_id = {q["id"]: q for q in questions + reserve}
        _advance(bar, f"{len(questions)} questions {data['counts']}")

        with self.timer.stage("base_evaluation"):
            base = self.base_evaluation(questions, reserve)
        forget = [by_id[i] for i in base["forget_ids"]]
        retain = [by_id[i] for i in base["retain_ids"]]
        multi = [by_id[i] for i in base["multi_hop_ids"]]
        bbh_base = None
        if cfg.bbh_tasks:
            with self.timer.stage("bbh:base"):
                bbh_base = self.bbh("bbh-base", lambda: self.model()[0])
        _advance(bar, f"{len(forget)} forget / {len(retain)} retain facts")

        forget_keys = {fact_key(q["target"]) for q in forget}
        asked_sh = [by_id[i] for i in base["answers"] if by_id[i]["type"] == "SH"]
        context = self.context_facts(
            asked_sh + [q for q in questions if q["type"] != "SH"], forget_keys
        )
        scored = {"SH": forget}
        scored.update({t: [q for q in multi if q["type"] == t] for t in cfg.types if t != "SH"})

        methods_out: dict[str, Any] = {}
        for method in cfg.methods:
            unlearned = UnlearnedModel(self, method, forget, retain)
            methods_out[method] = self.score_method(
                unlearned, by_id, base, scored, retain, context, bbh_base
            )
            unlearned.release()  # free the unlearned copy before the next method
            _advance(bar, f"{method} done")
        if bar is not None:
            bar.close()
        judges = None
        if len(self.judge_names) > 1:
            cells = {"base": base, **{m: self.store.get(f"{m}/eval") for m in cfg.methods}}
            with self.timer.stage("judge_agreement"):
                judges = self.judge_agreement(by_id, cells)

        scored_ids = [q["id"] for qs in scored.values() for q in qs] + base["retain_ids"]
        return {
            "leakres_version": metadata.version("leakres-cli"),
            "config": cfg.fingerprint_dict(),
            "run_control": {"allow_fewer": cfg.allow_fewer},
            "model_path": self.model_path,
            "seed": cfg.seed,
            "versions": library_versions(),
            "decoding": self.decoding(),
            "sizes": base["sizes"],
            "dataset": {
                "source": cfg.source,
                "counts": data["counts"],
                "shortfall": data["shortfall"],
                "n_rejects": data["n_rejects"],
                "n_facts": data["n_facts"],
                "n_single_hop_asked": base["n_single_hop_asked"],
                "n_single_hop_known": base["n_single_hop_known"],
                "n_single_hop_unjudged": sum(
                    base["correct"][i] is None for i in base["answers"] if by_id[i]["type"] == "SH"
                ),
                "n_base_unjudged_scored": sum(base["correct"][i] is None for i in scored_ids),
            },
            "bbh": bbh_data,
            "forget_facts": [q["target"] for q in forget],
            "retain_facts": [q["target"] for q in retain],
            "scored_questions": {t: len(qs) for t, qs in scored.items()},
            "methods": methods_out,
            "judges": judges,
            "timings_s": {**self.timer.timings, "total": round(time.perf_counter() - start, 3)},
        }

    def score_method(
        self,
        unlearned: UnlearnedModel,
        by_id: dict[str, Record],
        base: dict[str, Any],
        scored: dict[str, list[Record]],
        retain: list[Record],
        context: dict[str, list[dict[str, str]]],
        bbh_base: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Every number of one method, each from leak-metrics: FQ per type, S_suc, RR, robustness,
        utility. Unjudged verdicts (None) are never counted as wrong; they are counted."""
        from leak_metrics import (
            accuracy,
            forget_quality,
            recovery_rate,
            recovery_rate_by_hop,
            robustness,
            successfully_unlearned,
            utility_ratio,
        )

        cfg, method = self.cfg, unlearned.method
        boot = {"seed": cfg.seed, "n_resamples": cfg.bootstrap}
        with self.timer.stage(f"{method}:eval"):
            ev = self.evaluate_method(method, by_id, base, unlearned)

        def verdicts(table: dict[str, Any], qs: list[Record]) -> list[bool | None]:
            return [table["correct"][q["id"]] for q in qs]

        per_type: dict[str, Any] = {}
        s_suc: dict[str, list[str]] = {}
        for qtype, qs in scored.items():
            b, u = verdicts(base, qs), verdicts(ev, qs)
            per_type[qtype] = {
                "n": len(qs),
                "acc_base": accuracy(b, **boot).to_dict(),
                "acc_unlearned": accuracy(u, **boot).to_dict(),
                "fq": forget_quality(b, u, **boot).to_dict(),
            }
            ids = [q["id"] for q in qs]
            s_suc[qtype] = successfully_unlearned(
                {i: base["correct"][i] for i in ids}, {i: ev["correct"][i] for i in ids}
            )
        multi_qs = [q for t, qs in scored.items() if t != "SH" for q in qs]
        all_qs = scored["SH"] + multi_qs

        type_of = {i: t for t, ids in s_suc.items() for i in ids}
        suc_ids = list(type_of)
        relearn = self.relearn_data(retain, scored["SH"])
        attacks_out: dict[str, Any] = {}
        recovered_by_attack: dict[str, list[bool | None]] = {}
        for attack in cfg.attacks:
            with self.timer.stage(f"{method}:attack:{attack}"):
                res = self.attack(
                    method, attack, [by_id[i] for i in suc_ids], relearn, context, unlearned
                )
            recovered = [res["recovered"][i] for i in suc_ids]
            recovered_by_attack[attack] = recovered
            by_hop = recovery_rate_by_hop(
                [{"id": i, "type": type_of[i], "recovered": res["recovered"][i]} for i in suc_ids],
                **boot,
            )
            attacks_out[attack] = {
                "settings": res["settings"],
                "decoding": res.get("decoding"),
                "rr_SH": by_hop["SH"].to_dict(),
                "rr_MH": by_hop["MH"].to_dict(),
                "rr_all": by_hop["all"].to_dict(),
                "rr_per_type": {
                    t: recovery_rate([res["recovered"][i] for i in ids], **boot).to_dict()
                    for t, ids in s_suc.items()
                },
                "n_unjudged": sum(r is None for r in recovered),
            }

        retain_b, retain_u = verdicts(base, retain), verdicts(ev, retain)
        retain_ratio = utility_ratio(retain_b, retain_u, **boot).to_dict()
        utility: dict[str, Any] = {
            "source": "retain accuracy (BBH off: --bbh-tasks)",
            "ratio": retain_ratio,
            "retain_accuracy_ratio": retain_ratio,
            "bbh_ratio": None,
            "labels": {
                "retain_accuracy_ratio": "retain-accuracy ratio: Acc_u / Acc_p on the retain facts",
                "bbh_ratio": "BBH ratio: BBH accuracy of theta_u / theta_p on the same examples",
            },
        }
        if bbh_base is not None:
            with self.timer.stage(f"{method}:bbh"):
                bbh_u = self.bbh(f"{method}/bbh", unlearned)
            bbh_ratio = utility_ratio(bbh_base["correct"], bbh_u["correct"], **boot).to_dict()
            utility.update(
                source="bbh",
                ratio=bbh_ratio,
                bbh_ratio=bbh_ratio,
                base=bbh_base["overall"],
                unlearned=bbh_u["overall"],
            )
        scored_ids = [q["id"] for q in all_qs + retain]
        return {
            "unlearn": unlearned.record,
            "training": training_summary(unlearned.record, len(scored["SH"])),
            "per_type": per_type,
            "fq_all_types": forget_quality(
                verdicts(base, all_qs), verdicts(ev, all_qs), **boot
            ).to_dict(),
            "fq_multi_hop": forget_quality(
                verdicts(base, multi_qs), verdicts(ev, multi_qs), **boot
            ).to_dict(),
            "retain": {
                "n": len(retain),
                "acc_base": accuracy(retain_b, **boot).to_dict(),
                "acc_unlearned": accuracy(retain_u, **boot).to_dict(),
            },
            "utility": utility,
            "s_suc": {t: len(ids) for t, ids in s_suc.items()},
            "attacks": attacks_out,
            "robustness": robustness(recovered_by_attack, **boot).to_dict(),
            "n_unjudged": {
                "base": sum(base["correct"][i] is None for i in scored_ids),
                "unlearned": sum(ev["correct"][i] is None for i in scored_ids),
                "attacks": {a: out["n_unjudged"] for a, out in attacks_out.items()},
            },
        }

    @staticmethod
    def context_facts(
        questions: list[Record], forget_keys: set[FactKey]
    ) -> dict[str, list[dict[str, str]]]:
        """For in-context attacks: up to 3 non-forgotten SH facts about the same subject, per question.

        A related fact whose answer is the forgotten object would state the forgotten fact in other words
        (recover-attacks rejects such context), so it is left out.
        """
        by_subject: dict[str, list[Record]] = defaultdict(list)
        for q in questions:
            if q["type"] == "SH" and fact_key(q["target"]) not in forget_keys:
                by_subject[q["target"]["subject"]].append(q)
        context = {}
        for q in questions:
            forgotten_object = q["target"]["object"].casefold()
            related = [
                {"question": r["question"], "answer": r["answer"]}
                for r in by_subject.get(q["target"]["subject"], [])
                if r["answer"].casefold() != forgotten_object
            ]
            context[q["id"]] = related[:3]
        return context

    @staticmethod
    def relearn_data(retain: list[Record], forget: list[Record]) -> list[dict[str, str]]:
        """Retain facts for relearning, minus any that restate a forgotten (subject, object) pair."""
        forgotten = {(f["target"]["subject"], f["target"]["object"].casefold()) for f in forget}
        return [
            {"question": q["question"], "answer": q["answer"]}
            for q in retain
            if (q["target"]["subject"], q["answer"].casefold()) not in forgotten
        ]


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


def select_facts(
    known: Sequence[Record], multi: Sequence[Record], n_forget: int, n_retain: int, seed: int
) -> tuple[list[Record], list[Record]]:
    """Forget and retain facts from the known SH questions (deterministic for a seed).

    Forget: the known facts reached by the most multi-hop questions, so every type has items;
    ties broken by a seeded shuffle. Retain (METHODS.md: "neighbours: same relations, other
    subjects"): first known facts with a forget fact's relation and another subject, then facts
    of other relations and other subjects, last facts about a forget subject; seeded order inside
    each group. Disjoint from the forget facts.
    """
    reach = Counter(fact_key(q["target"]) for q in multi)
    order = list(known)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda q: -reach[fact_key(q["target"])])
    forget = order[:n_forget]
    forget_keys = {fact_key(q["target"]) for q in forget}
    forget_subjects = {q["target"]["subject"] for q in forget}
    forget_relations = {q["target"]["relation"] for q in forget}

    def neighbourhood(q: Record) -> int:
        if q["target"]["subject"] in forget_subjects:
            return 2
        return 0 if q["target"]["relation"] in forget_relations else 1

    rest = [q for q in order[n_forget:] if fact_key(q["target"]) not in forget_keys]
    random.Random(seed + 1).shuffle(rest)
    rest.sort(key=neighbourhood)
    return forget, rest[:n_retain]


def training_summary(record: dict[str, Any] | None, n_forget: int) -> dict[str, Any]:
    """Run size of one unlearning from unlearn-zoo's record: examples seen, epochs, steps, cap.

    Every field is taken from the record; one the record lacks is computed here from what it has
    and named in ``computed_by_cli`` (``None`` when it cannot be computed).
    """
    rec = record or {}
    config = rec.get("config") or {}
    out: dict[str, Any] = {
        "n_forget": rec.get("n_forget", n_forget),
        "forget_examples_seen": rec.get("forget_examples_seen"),
        "epochs": config.get("epochs"),
        "epochs_completed": rec.get("epochs_completed"),
        "steps": rec.get("steps"),
        "planned_steps": rec.get("planned_steps"),
        "max_steps": config.get("max_steps"),
        "cap_hit": rec.get("cap_hit"),
        "stop_reason": rec.get("stop_reason"),
        "computed_by_cli": [],
    }
    steps, planned = out["steps"], out["planned_steps"]
    if out["cap_hit"] is None and steps is not None:
        cap = out["max_steps"]
        out["cap_hit"] = cap is not None and steps >= cap and (planned is None or cap < planned)
        out["computed_by_cli"].append("cap_hit")
    if out["epochs_completed"] is None and steps is not None and planned and out["epochs"]:
        out["epochs_completed"] = out["epochs"] * steps / planned
        out["computed_by_cli"].append("epochs_completed")
    if out["forget_examples_seen"] is None and steps is not None and config.get("batch_size"):
        # An upper bound from the batches: without the record's count, distinct examples are unknown.
        per_step = config["batch_size"] * config.get("grad_accum_steps", 1)
        out["forget_examples_seen"] = min(out["n_forget"], steps * per_step)
        out["computed_by_cli"].append("forget_examples_seen (upper bound: steps x batch)")
    seen = out["forget_examples_seen"]
    out["every_forget_example_seen"] = None if seen is None else seen >= out["n_forget"]
    return out


def _usage(judge: Any) -> dict[str, Any]:
    """An LLM judge's request/token counters (a dataclass) as a dict; {} for judges without usage."""
    usage = getattr(judge, "usage", None)
    return dataclasses.asdict(usage) if dataclasses.is_dataclass(usage) else {}


def _stage_bar(stages: list[str], enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=len(stages), desc="leakres", unit="stage", position=0)


def _advance(bar: Any, note: str) -> None:
    if bar is not None:
        bar.set_postfix_str(note[:60])
        bar.update(1)
