"""The benchmark pipeline: questions -> base answers -> forget/retain split -> unlearn -> evaluate -> attack.

Every stage result is a cell in :class:`~leakres_cli.store.CellStore`; a rerun with the same configuration
and output directory reuses finished cells, so an interrupted grid resumes where it stopped.
"""

from __future__ import annotations

import platform
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
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
        "leakres-cli", "kg-qgen", "unlearn-zoo", "recover-attacks", "leak-metrics",
        "torch", "transformers", "peft", "trl", "datasets", "accelerate", "bitsandbytes",
    ]  # fmt: skip
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

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        try:
            return fn()
        finally:
            self.timings[name] = round(self.timings.get(name, 0.0) + time.perf_counter() - start, 3)


class Benchmark:
    """One configured run writing into ``out_dir``."""

    def __init__(self, cfg: RunConfig, out_dir: Path, *, progress: bool = True,
                 log: Callable[[str], None] = print) -> None:  # fmt: skip
        self.cfg = cfg
        self.out_dir = out_dir
        self.progress = progress
        self.log = log
        self.store = CellStore(out_dir, fingerprint(cfg.to_dict()))
        self.timer = StageTimer()
        self._model: Any = None
        self._tokenizer: Any = None
        self.model_path: str | None = None

    # ------------------------------------------------------------------ stages
    def build_questions(self) -> dict[str, Any]:
        """Multi-hop questions (balanced, ``per_type`` each) plus the SH question of every fact they reach.

        SH questions select the forget facts, so every multi-hop target must have its SH question; further
        SH questions (seeded sample) fill up to ``per_type`` to give retain candidates.
        """
        cached = self.store.get("questions")
        if cached is not None:
            return cached
        import kg_qgen

        cfg = self.cfg
        graph = kg_qgen.load_source(cfg.source, cfg.source_path)
        multi_types = tuple(t for t in cfg.types if t != "SH")
        multi = kg_qgen.build(graph, types=multi_types, per_type=cfg.per_type, seed=cfg.seed) if multi_types else None
        single = kg_qgen.build(graph, types=("SH",), per_type=10**9, seed=cfg.seed)
        multi_questions = multi.questions if multi else []
        reached = {fact_key(q["target"]) for q in multi_questions}
        needed = [q for q in single.questions if fact_key(q["target"]) in reached]
        others = [q for q in single.questions if fact_key(q["target"]) not in reached]
        random.Random(cfg.seed).shuffle(others)
        sh = needed + others[: max(0, cfg.per_type - len(needed))]
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
            model, tokenizer, [q["question"] for q in questions],
            max_new_tokens=self.cfg.max_new_tokens, batch_size=self.cfg.batch_size,
            seed=self.cfg.seed, progress=self.progress,
        )  # fmt: skip
        return [responses[0] for responses in outputs]

    def judge(self, questions: Sequence[Record], responses: Sequence[Sequence[str]]) -> list[bool | None]:
        """Per question: True if any response is judged correct, None if none could be judged."""
        from leak_metrics import JudgeItem, get_judge

        judge = get_judge(self.cfg.judge)
        items, owners = [], []
        for i, (q, resp) in enumerate(zip(questions, responses, strict=True)):
            for r in resp:
                items.append(JudgeItem(id=q["id"], question=q["question"], answer=q["answer"],
                                       aliases=list(q.get("answer_aliases", [])), response=r))  # fmt: skip
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
            {"question": q["question"], "answer": q["answer"],
             "spans": [q["target"]["subject"], q["target"]["object"]]}
            for q in records
        ]  # fmt: skip

    def unlearn(self, method: str, forget: list[Record], retain: list[Record]) -> tuple[Any, dict]:
        from unlearn_zoo import get_unlearner

        model, tokenizer = self.model()
        overrides = dict(self.cfg.method_overrides.get(method, {}))
        overrides.setdefault("seed", self.cfg.seed)
        unlearner = get_unlearner(method, **overrides)
        result = unlearner.unlearn(
            model, tokenizer, self.unlearn_examples(forget), self.unlearn_examples(retain),
            progress=self.progress,
        )  # fmt: skip
        result.model.eval()
        return result.model, result.record

    def evaluate_method(self, method: str, by_id: dict[str, Record], base: dict[str, Any],
                        get_unlearned: Callable[[], Any]) -> dict[str, Any]:  # fmt: skip
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

    def attack(self, method: str, attack: str, targets: list[Record], retain: list[Record],
               context: dict[str, list[dict[str, str]]], get_unlearned: Callable[[], Any]) -> dict[str, Any]:  # fmt: skip
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
                get_unlearned(), tokenizer, targets, original_model=base_model,
                relearn_data=[{"question": q["question"], "answer": q["answer"]} for q in retain],
                context_facts=context, progress=self.progress,
            )  # fmt: skip
        by_result = {r.id: r for r in results}
        responses = [list(by_result[q["id"]].responses) for q in targets]
        recovered = self.judge(targets, responses)
        payload = {
            "settings": results[0].settings if results else dict(getattr(atk, "settings", {}) or {}),
            "responses": {q["id"]: r for q, r in zip(targets, responses, strict=True)},
            "recovered": {q["id"]: ok for q, ok in zip(targets, recovered, strict=True)},
        }
        self.store.put(name, payload)
        return payload

    # ------------------------------------------------------------------ orchestration
    def run(self) -> dict[str, Any]:
        from leak_metrics import accuracy, forget_quality, recovery_rate

        cfg = self.cfg
        start = time.perf_counter()
        stages = ["questions", "base model", *(f"{m}: unlearn/eval/attack" for m in cfg.methods)]
        bar = _stage_bar(stages, self.progress)

        data = self.timer.run("questions", self.build_questions)
        questions: list[Record] = data["questions"]
        by_id = {q["id"]: q for q in questions}
        _advance(bar, f"{len(questions)} questions {data['counts']}")

        base = self.timer.run("base_evaluation", lambda: self.base_evaluation(questions))
        forget = [by_id[i] for i in base["forget_ids"]]
        retain = [by_id[i] for i in base["retain_ids"]]
        multi = [by_id[i] for i in base["multi_hop_ids"]]
        _advance(bar, f"{len(forget)} forget / {len(retain)} retain facts")

        forget_keys = {fact_key(q["target"]) for q in forget}
        context = self.context_facts(questions, forget, forget_keys)
        scored = {"SH": forget, **{t: [q for q in multi if q["type"] == t] for t in cfg.types if t != "SH"}}

        methods_out: dict[str, Any] = {}
        for method in cfg.methods:
            unlearned: dict[str, Any] = {}

            def get_unlearned(method: str = method, unlearned: dict[str, Any] = unlearned) -> Any:
                if "model" not in unlearned:
                    model, record = self.timer.run(
                        f"{method}:unlearn", lambda: self.unlearn(method, forget, retain)
                    )
                    unlearned["model"], unlearned["record"] = model, record
                    self.store.put(f"{method}/unlearn", record)
                return unlearned["model"]

            ev = self.timer.run(f"{method}:eval", lambda m=method, g=get_unlearned: self.evaluate_method(m, by_id, base, g))  # fmt: skip
            per_type: dict[str, Any] = {}
            s_suc: dict[str, list[str]] = {}
            for qtype, qs in scored.items():
                b = [base["correct"][q["id"]] for q in qs]
                u = [ev["correct"][q["id"]] for q in qs]
                per_type[qtype] = {
                    "n": len(qs),
                    "acc_base": accuracy(b, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                    "acc_unlearned": accuracy(u, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                    "fq": forget_quality(b, u, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                }
                s_suc[qtype] = [q["id"] for q in qs if base["correct"][q["id"]] is True and ev["correct"][q["id"]] is False]
            retain_acc_b = [base["correct"][q["id"]] for q in retain]
            retain_acc_u = [ev["correct"][q["id"]] for q in retain]
            suc_records = [by_id[i] for ids in s_suc.values() for i in ids]
            attacks_out: dict[str, Any] = {}
            for attack in cfg.attacks:
                res = self.timer.run(
                    f"{method}:attack:{attack}",
                    lambda a=attack, g=get_unlearned: self.attack(method, a, suc_records, retain, context, g),
                )
                sh = [res["recovered"][i] for i in s_suc.get("SH", [])]
                mh = [res["recovered"][i] for t, ids in s_suc.items() if t != "SH" for i in ids]
                attacks_out[attack] = {
                    "settings": res["settings"],
                    "rr_SH": recovery_rate(sh, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                    "rr_MH": recovery_rate(mh, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                    "rr_per_type": {
                        t: recovery_rate([res["recovered"][i] for i in ids], seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict()
                        for t, ids in s_suc.items()
                    },
                }  # fmt: skip
            record = self.store.get(f"{method}/unlearn") or unlearned.get("record")
            methods_out[method] = {
                "unlearn": record,
                "per_type": per_type,
                "retain": {
                    "n": len(retain),
                    "acc_base": accuracy(retain_acc_b, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                    "acc_unlearned": accuracy(retain_acc_u, seed=cfg.seed, n_resamples=cfg.bootstrap).to_dict(),
                },
                "s_suc": {t: len(ids) for t, ids in s_suc.items()},
                "attacks": attacks_out,
                "robustness": _robustness(attacks_out),
            }  # fmt: skip
            unlearned.clear()  # free the unlearned copy before the next method
            _advance(bar, f"{method} done")
        if bar is not None:
            bar.close()

        return {
            "leakres_version": metadata.version("leakres-cli"),
            "config": cfg.to_dict(),
            "model_path": self.model_path,
            "seed": cfg.seed,
            "versions": library_versions(),
            "dataset": {
                "source": cfg.source, "counts": data["counts"], "shortfall": data["shortfall"],
                "n_rejects": data["n_rejects"], "n_facts": data["n_facts"],
                "n_single_hop_asked": base["n_single_hop_asked"],
                "n_single_hop_known": base["n_single_hop_known"],
            },  # fmt: skip
            "forget_facts": [q["target"] for q in forget],
            "retain_facts": [q["target"] for q in retain],
            "scored_questions": {t: len(qs) for t, qs in scored.items()},
            "methods": methods_out,
            "timings_s": {**self.timer.timings, "total": round(time.perf_counter() - start, 3)},
        }

    @staticmethod
    def context_facts(questions: list[Record], forget: list[Record], forget_keys: set[FactKey]) -> dict[str, list[dict[str, str]]]:  # fmt: skip
        """For in-context attacks: known, non-forgotten SH facts about the same subject, per question id."""
        by_subject: dict[str, list[dict[str, str]]] = defaultdict(list)
        for q in questions:
            if q["type"] == "SH" and fact_key(q["target"]) not in forget_keys:
                by_subject[q["target"]["subject"]].append({"question": q["question"], "answer": q["answer"]})
        return {q["id"]: by_subject.get(q["target"]["subject"], [])[:3] for q in questions}


def _robustness(attacks: dict[str, Any]) -> dict[str, Any]:
    values = [
        a[k]["value"] for a in attacks.values() for k in ("rr_SH", "rr_MH") if a[k]["value"] is not None
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
