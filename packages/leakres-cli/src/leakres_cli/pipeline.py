"""The benchmark pipeline: questions -> base answers -> forget/retain split -> unlearn -> evaluate -> attack.

Every stage result is a cell in :class:`~leakres_cli.store.CellStore`; a rerun with the same configuration
and output directory reuses finished cells, so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

import dataclasses
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
        return self._model

    def release(self) -> None:
        self._model = None


class Benchmark:
    """One configured run writing into ``out_dir``."""

    def __init__(
        self,
        cfg: RunConfig,
        out_dir: Path,
        *,
        progress: bool = True,
    ) -> None:
        self.cfg = cfg
        self.out_dir = out_dir
        self.progress = progress
        self.store = CellStore(out_dir, fingerprint(cfg.to_dict()))
        self.timer = StageTimer()
        self._model: Any = None
        self._tokenizer: Any = None
        self.model_path: str | None = None

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
        sh = needed + others[: max(0, cfg.sh_pool - len(needed))]
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
        }
        self.store.put("questions", payload)
        return payload

    def model(self) -> tuple[Any, Any]:
        if self._model is None:
            from .models import load_model

            self._model, self._tokenizer, self.model_path = load_model(self.cfg.model)
        return self._model, self._tokenizer

    def answer(self, model: Any, questions: Sequence[Record], desc: str) -> list[str]:
        """Greedy answers, batched (recover_attacks.generate sorts by length and restores order)."""
        from recover_attacks import generate

        if not questions:
            return []
        _, tokenizer = self.model()
        outputs = generate(
            model,
            tokenizer,
            [q["question"] for q in questions],
            max_new_tokens=self.cfg.max_new_tokens,
            batch_size=self.cfg.batch_size,
            seed=self.cfg.seed,
            progress=self.progress,
        )
        return [responses[0] for responses in outputs]

    def judge(
        self, questions: Sequence[Record], responses: Sequence[Sequence[str]]
    ) -> list[bool | None]:
        """Per question: True if any response is judged correct, None if none could be judged."""
        from leak_metrics import JudgeItem

        judge = self.get_judge(self.judge_names[0])
        items, owners = [], []
        for i, (q, resp) in enumerate(zip(questions, responses, strict=True)):
            for r in resp:
                items.append(
                    JudgeItem(
                        id=q["id"],
                        question=q["question"],
                        answer=q["answer"],
                        aliases=list(q.get("answer_aliases", [])),
                        response=r,
                    )
                )
                owners.append(i)
        verdicts = judge.judge(items) if items else []
        per_q: list[list[bool | None]] = [[] for _ in questions]
        for owner, verdict in zip(owners, verdicts, strict=True):
            per_q[owner].append(verdict.correct)
        out: list[bool | None] = []
        for vs in per_q:
            if any(v is True for v in vs):
                out.append(True)
            elif vs and all(v is None for v in vs):
                out.append(None)
            else:
                out.append(False)
        return out

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
                      aliases=list(by_id[qid].get("answer_aliases", [])), response=response)
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

    def base_evaluation(self, questions: list[Record]) -> dict[str, Any]:
        """Ask the base model every SH question, pick forget/retain facts, then ask the multi-hop ones."""
        cached = self.store.get("base")
        if cached is not None:
            return cached
        cfg = self.cfg
        model, _ = self.model()
        single = [q for q in questions if q["type"] == "SH"]
        sh_answers = self.answer(model, single, "base SH")
        sh_correct = self.judge(single, [[a] for a in sh_answers])
        known = [q for q, ok in zip(single, sh_correct, strict=True) if ok]
        if not known:
            raise LeakresError(
                f"the base model answered none of {len(single)} single-hop questions correctly; "
                "nothing can be unlearned (try another model or source)"
            )
        # Forget facts: known facts reached by the most multi-hop questions, so every type has items;
        # ties broken by a seeded shuffle so the choice is deterministic but not alphabetical.
        reach = Counter(fact_key(q["target"]) for q in questions if q["type"] != "SH")
        rng = random.Random(cfg.seed)
        order = list(known)
        rng.shuffle(order)
        order.sort(key=lambda q: -reach[fact_key(q["target"])])
        forget = order[: cfg.n_forget]
        forget_keys = {fact_key(q["target"]) for q in forget}
        forget_subjects = {q["target"]["subject"] for q in forget}
        # Retain facts: other known facts, preferring other subjects so "retain" is not trivially entangled.
        rest = [q for q in order[cfg.n_forget :] if fact_key(q["target"]) not in forget_keys]
        rest.sort(key=lambda q: q["target"]["subject"] in forget_subjects)
        retain = rest[: cfg.n_retain]
        multi = [q for q in questions if q["type"] != "SH" and fact_key(q["target"]) in forget_keys]
        mh_answers = self.answer(model, multi, "base multi-hop")
        mh_correct = self.judge(multi, [[a] for a in mh_answers])
        answers = {q["id"]: a for q, a in zip(single + multi, sh_answers + mh_answers, strict=True)}
        correct = {q["id"]: c for q, c in zip(single + multi, sh_correct + mh_correct, strict=True)}
        payload = {
            "forget_ids": [q["id"] for q in forget],
            "retain_ids": [q["id"] for q in retain],
            "multi_hop_ids": [q["id"] for q in multi],
            "answers": answers,
            "correct": correct,
            "n_single_hop_asked": len(single),
            "n_single_hop_known": len(known),
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
            return cached
        ids = base["forget_ids"] + base["multi_hop_ids"] + base["retain_ids"]
        questions = [by_id[i] for i in ids]
        answers = self.answer(get_unlearned(), questions, f"{method} eval")
        correct = self.judge(questions, [[a] for a in answers])
        payload = {
            "answers": dict(zip(ids, answers, strict=True)),
            "correct": dict(zip(ids, correct, strict=True)),
        }
        self.store.put(name, payload)
        return payload

    def attack(
        self,
        method: str,
        attack: str,
        targets: list[Record],
        relearn: list[dict[str, str]],
        context: dict[str, list[dict[str, str]]],
        get_unlearned: Callable[[], Any],
    ) -> dict[str, Any]:
        name = f"{method}/attack-{attack}"
        cached = self.store.get(name)
        if cached is not None:
            return cached
        from recover_attacks import get_attack

        overrides = dict(self.cfg.attack_overrides.get(attack, {}))
        overrides.setdefault("seed", self.cfg.seed)
        atk = get_attack(attack, **overrides)
        base_model, tokenizer = self.model()
        results = []
        if targets:
            results = atk.run(
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
        payload = {
            "settings": results[0].settings
            if results
            else atk.settings(),  # no S_suc: the attack's config (settings is a method)
            "responses": {q["id"]: r for q, r in zip(targets, responses, strict=True)},
            "recovered": {q["id"]: ok for q, ok in zip(targets, recovered, strict=True)},
        }
        self.store.put(name, payload)
        return payload

    def bbh(self, name: str, get_model: Callable[[], Any]) -> dict[str, Any]:
        """BIG-Bench-Hard answers of the model (a cell), for the utility ratio."""
        cached = self.store.get(name)
        if cached is not None:
            return cached
        from leak_metrics.bbh import evaluate_bbh

        cfg = self.cfg
        _, tokenizer = self.model()
        tasks = None if cfg.bbh_tasks == ("all",) else list(cfg.bbh_tasks)
        result = evaluate_bbh(
            get_model(),
            tokenizer,
            tasks=tasks,
            limit=cfg.bbh_limit or None,
            batch_size=cfg.batch_size,
            seed=cfg.seed,
            cot=cfg.bbh_cot,
        )
        payload = {
            "correct": result.correct,
            "overall": result.overall.to_dict(),
            "per_task": {t: m.to_dict() for t, m in result.per_task.items()},
            "config": result.config,
            "wall_time": result.wall_time,
        }
        self.store.put(name, payload)
        return payload

    # ------------------------------------------------------------------ orchestration
    def run(self) -> dict[str, Any]:
        cfg = self.cfg
        start = time.perf_counter()
        stages = ["questions", "base model", *(f"{m}: unlearn/eval/attack" for m in cfg.methods)]
        bar = _stage_bar(stages, self.progress)

        with self.timer.stage("questions"):
            data = self.build_questions()
        questions: list[Record] = data["questions"]
        by_id = {q["id"]: q for q in questions}
        _advance(bar, f"{len(questions)} questions {data['counts']}")

        with self.timer.stage("base_evaluation"):
            base = self.base_evaluation(questions)
        forget = [by_id[i] for i in base["forget_ids"]]
        retain = [by_id[i] for i in base["retain_ids"]]
        multi = [by_id[i] for i in base["multi_hop_ids"]]
        bbh_base = None
        if cfg.bbh_tasks:
            with self.timer.stage("bbh:base"):
                bbh_base = self.bbh("bbh-base", lambda: self.model()[0])
        _advance(bar, f"{len(forget)} forget / {len(retain)} retain facts")

        forget_keys = {fact_key(q["target"]) for q in forget}
        context = self.context_facts(questions, forget_keys)
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

        return {
            "leakres_version": metadata.version("leakres-cli"),
            "config": cfg.to_dict(),
            "model_path": self.model_path,
            "seed": cfg.seed,
            "versions": library_versions(),
            "dataset": {
                "source": cfg.source,
                "counts": data["counts"],
                "shortfall": data["shortfall"],
                "n_rejects": data["n_rejects"],
                "n_facts": data["n_facts"],
                "n_single_hop_asked": base["n_single_hop_asked"],
                "n_single_hop_known": base["n_single_hop_known"],
            },
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
        """Every number of one method: FQ per type, S_suc, RR per attack, robustness, utility."""
        from leak_metrics import accuracy, forget_quality, recovery_rate, utility_ratio

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
            s_suc[qtype] = [
                q["id"] for q, bq, uq in zip(qs, b, u, strict=True) if bq is True and uq is False
            ]
        multi_qs = [q for t, qs in scored.items() if t != "SH" for q in qs]
        all_qs = scored["SH"] + multi_qs

        suc_records = [by_id[i] for ids in s_suc.values() for i in ids]
        relearn = self.relearn_data(retain, scored["SH"])
        attacks_out: dict[str, Any] = {}
        for attack in cfg.attacks:
            with self.timer.stage(f"{method}:attack:{attack}"):
                res = self.attack(method, attack, suc_records, relearn, context, unlearned)

            def rr(ids: list[str], res: dict[str, Any] = res) -> dict[str, Any]:
                return recovery_rate([res["recovered"][i] for i in ids], **boot).to_dict()

            attacks_out[attack] = {
                "settings": res["settings"],
                "rr_SH": rr(s_suc.get("SH", [])),
                "rr_MH": rr([i for t, ids in s_suc.items() if t != "SH" for i in ids]),
                "rr_per_type": {t: rr(ids) for t, ids in s_suc.items()},
            }

        retain_b, retain_u = verdicts(base, retain), verdicts(ev, retain)
        if bbh_base is not None:
            with self.timer.stage(f"{method}:bbh"):
                bbh_u = self.bbh(f"{method}/bbh", unlearned)
            ratio = utility_ratio(bbh_base["correct"], bbh_u["correct"], **boot).to_dict()
            utility = {
                "source": "bbh",
                "base": bbh_base["overall"],
                "unlearned": bbh_u["overall"],
                "ratio": ratio,
            }
        else:
            ratio = utility_ratio(retain_b, retain_u, **boot).to_dict()
            utility = {"source": "retain accuracy (BBH off: --bbh-tasks)", "ratio": ratio}
        return {
            "unlearn": unlearned.record,
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
            "robustness": _robustness(attacks_out),
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


def _usage(judge: Any) -> dict[str, Any]:
    """An LLM judge's request/token counters (a dataclass) as a dict; {} for judges without usage."""
    usage = getattr(judge, "usage", None)
    return dataclasses.asdict(usage) if dataclasses.is_dataclass(usage) else {}


def _robustness(attacks: dict[str, Any]) -> dict[str, Any]:
    values = [
        a[k]["value"]
        for a in attacks.values()
        for k in ("rr_SH", "rr_MH")
        if a[k]["value"] is not None
    ]
    if not values:
        return {"value": None, "undefined_reason": "no attack had successfully unlearned items"}
    return {"value": 1.0 - max(values), "undefined_reason": None}


def _stage_bar(stages: list[str], enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=len(stages), desc="leakres", unit="stage", position=0)


def _advance(bar: Any, note: str) -> None:
    if bar is not None:
        bar.set_postfix_str(note[:60])
        bar.update(1)
