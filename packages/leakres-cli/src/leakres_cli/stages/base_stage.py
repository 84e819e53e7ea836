"""The ``--base tuned|taught`` stages of a run: teach theta_p after the questions are built, and
(``taught``) teach and evaluate the control model once the forget facts are chosen. The teaching
itself (corpus, cache, settings) is :mod:`leakres_cli.stages.base_model`; this module wires it into the
run and turns the control's verdicts into per-type accuracies beside the taught model's."""

from __future__ import annotations

from typing import Any, Protocol

from leakres_cli.errors import LeakresError
from leakres_cli.records import Record, fact_key
from leakres_cli.stages.base_model import TeachingHost, build_corpus, question_facts, taught_model
from leakres_cli.stages.type_checks import question_chance

#: the control's cell (answers and verdicts on the scored questions)
CONTROL_CELL = "base-model-control"


class ControlHost(TeachingHost, Protocol):
    store: Any

    def answer(self, model: Any, questions: list[Record], desc: str) -> list[str]: ...

    def judge(self, questions: list[Record], responses: list[list[str]]) -> list[bool | None]: ...


def _training(record: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "steps",
        "n_examples",
        "n_completion_tokens",
        "wall_time_s",
        "peak_rss_mb",
        "loss_curve",
    )
    return {k: record.get(k) for k in keys}


def prepare_base(
    host: ControlHost, data: dict[str, Any], base_digest: str | None
) -> dict[str, Any]:
    """Teach theta_p (``cfg.base``) for the run's questions ``data`` (or load it from the cache)
    and make it the run's base model. The questions cell is then narrowed so that no fact a worked
    example rests on can be chosen or scored: every question (SH pool, reserve, multi-hop) with
    such a premise is dropped. Returns results.json's ``base_model`` record.

    Worked examples on the run's own source (``--teach-source`` unset, ``tuned``) rest on no
    *protected* fact (:func:`protected_facts`: the forget and retain facts the pretrained model's
    answers would select, and every fact of the questions they would score); on another source
    on no fact of any question of the run."""
    cfg = host.cfg
    protected = None
    if cfg.base == "tuned" and not cfg.teach_source:
        protected = protected_facts(host, data)
    examples, info = build_corpus(cfg, data, exclude=protected)
    if not any(kind.startswith("worked:") for kind in info["counts"]):
        raise LeakresError(
            f"--base {cfg.base}: the knowledge source '{info['teach_source']}' has no multi-hop "
            f"question on facts disjoint from the run's {info['n_excluded_facts']} protected facts "
            f"(per type: {info['worked_available']}); pass a smaller --per-type or --n-forget"
        )
    model, record = taught_model(host, examples, cfg.base, base_digest)
    host.replace_model(model)
    worked = {tuple(f) for f in info.pop("worked_facts")}
    info["n_questions_dropped"] = _drop_questions(data, worked)
    return {
        "kind": cfg.base,
        "settings": record["settings"],
        "corpus": {**info, "digest": record["corpus_digest"]},
        "training": _training(record),
        "sha256": record.get("sha256"),
        "cache": record["cache"],
    }


def _drop_questions(data: dict[str, Any], facts: set) -> dict[str, int]:
    """Remove from the questions cell ``data`` every question resting on one of ``facts``."""
    dropped = {}
    for key in ("questions", "sh_reserve"):
        kept = [q for q in data.get(key, []) if not question_facts([q]) & facts]
        dropped[key] = len(data.get(key, [])) - len(kept)
        data[key] = kept
    return dropped


def protected_facts(host: ControlHost, data: dict[str, Any]) -> set:
    """The facts a worked example of ``tuned`` on the run's own source may not rest on: the
    pretrained model answers the SH pool (cell ``pretrained-single-hop``), :func:`select_facts`
    picks forget and retain facts among the known ones as the run would, and every premise of
    the multi-hop questions reaching a forget fact is added. The tuned model's own selection
    (made later, on its answers) can only pick among questions left after the worked examples'
    facts are dropped, so it is disjoint from them whatever it picks."""
    from leakres_cli.stages.evaluation import select_facts

    cfg = host.cfg
    pool = [q for q in data["questions"] if q["type"] == "SH"]
    multi = [q for q in data["questions"] if q["type"] != "SH"]

    def compute() -> dict[str, Any]:
        answers = host.answer(host.model()[0], pool, "pretrained single-hop")
        verdicts = host.judge(pool, [[a] for a in answers])
        return {"correct": {q["id"]: v for q, v in zip(pool, verdicts, strict=True)}}

    correct = host.store.cached("pretrained-single-hop", compute)["correct"]
    known = [q for q in pool if correct.get(q["id"]) is True]
    n = min(cfg.n_forget + cfg.n_retain, len(known))
    n_forget = max(1, round(n * cfg.n_forget / (cfg.n_forget + cfg.n_retain))) if known else 0
    forget, retain = (
        select_facts(known, multi, n_forget, n - n_forget, cfg.seed) if known else ([], [])
    )
    keys = {fact_key(q["target"]) for q in forget}
    reached = [q for q in multi if fact_key(q["target"]) in keys]
    return question_facts([*forget, *retain, *reached])


def control_stage(
    host: ControlHost,
    data: dict[str, Any],
    scored: dict[str, list[Record]],
    base_digest: str | None,
) -> dict[str, Any]:
    """The control of ``--base taught``: the same corpus without the forget facts' statements
    (``scored["SH"]`` are the forget facts), its answers and verdicts on every scored question (a
    cell; the model itself is cached like theta_p)."""
    forget = {fact_key(q["target"]) for q in scored.get("SH", [])}
    questions = [q for qs in scored.values() for q in qs]

    def compute() -> dict[str, Any]:
        examples, info = build_corpus(host.cfg, data, without=forget)
        info.pop("worked_facts")
        model, record = taught_model(host, examples, "control", base_digest)
        answers = host.answer(model, questions, "control")
        verdicts = host.judge(questions, [[a] for a in answers])
        del model
        return {
            "answers": dict(zip([q["id"] for q in questions], answers, strict=True)),
            "correct": dict(zip([q["id"] for q in questions], verdicts, strict=True)),
            "corpus": {**info, "digest": record["corpus_digest"]},
            "training": _training(record),
            "sha256": record.get("sha256"),
            "cache": record["cache"],
            "n_forget_left_out": len(forget),
        }

    return host.store.cached(CONTROL_CELL, compute)


def control_record(
    cell: dict[str, Any],
    scored: dict[str, list[Record]],
    base: dict[str, Any],
    boot: dict[str, int],
) -> dict[str, Any]:
    """Per scored type the control's accuracy beside the taught model's (leak-metrics ``accuracy``,
    bootstrap 95% CI) and the type's chance level (0 for open answers)."""
    from leak_metrics import accuracy

    per_type = {}
    for qtype, qs in scored.items():
        if not qs:
            continue
        per_type[qtype] = {
            "n": len(qs),
            "chance": sum(question_chance(q) for q in qs) / len(qs),
            "acc_control": accuracy([cell["correct"][q["id"]] for q in qs], **boot).to_dict(),
            "acc_taught": accuracy([base["correct"][q["id"]] for q in qs], **boot).to_dict(),
        }
    keep = ("corpus", "training", "sha256", "cache", "n_forget_left_out")
    return {"per_type": per_type, **{k: cell[k] for k in keep}}
