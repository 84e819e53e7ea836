"""What the pipeline scores (the frozen forget/retain selection as records) and the assembly of
results.json from the run's cells and scores."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from leak_metrics import labelled_agreement

from leakres_cli.config.run_config import RunConfig
from leakres_cli.outputs.schema import SCHEMA_VERSION
from leakres_cli.records import Record, fact_key
from leakres_cli.stages.attacking import context_facts
from leakres_cli.stages.type_checks import CHANCE_LABEL, coverage, type_checks

LIBRARIES = (
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
)


def library_versions(cfg: RunConfig | None = None) -> dict[str, str]:
    """The versions of Python, the libraries and (given ``cfg``) every plug-in distribution that
    provides a name the run uses (:func:`plugin_versions`)."""
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    if cfg is not None:
        versions.update({k: v for k, v in plugin_versions(cfg).items() if k not in versions})
    return versions


#: the plug-in entry-point groups of the libraries, and the run's names each group can provide
PLUGIN_GROUPS = {
    "leakres.unlearners": lambda cfg: cfg.methods,
    "leakres.attacks": lambda cfg: cfg.attacks,
    "leakres.judges": lambda cfg: tuple(j.strip() for j in cfg.judge.split(",")),
    "leakres.question_types": lambda cfg: cfg.types,
    "leakres.kg_sources": lambda cfg: (cfg.source,),
}


def plugin_versions(cfg: RunConfig) -> dict[str, str]:
    """``{distribution: version}`` of each installed plug-in whose entry point provides a method,
    attack, judge, question type or source the run uses (names compared case-insensitively)."""
    found: dict[str, str] = {}
    for group, used in PLUGIN_GROUPS.items():
        names = {str(n).lower() for n in used(cfg)}
        for ep in metadata.entry_points(group=group):
            if ep.name.lower() in names and ep.dist is not None:
                found[ep.dist.name] = ep.dist.version
    return found


@dataclass
class Selection:
    """The base cell's choice as question records: what is unlearned, kept, scored and attacked."""

    by_id: dict[str, Record]
    forget: list[Record]
    retain: list[Record]
    #: question type -> the scored questions (SH: the forget facts; others: their multi-hop ones)
    scored: dict[str, list[Record]]
    #: question id -> the in-context attack's related facts
    context: dict[str, list[dict[str, str]]]


def selection(cfg: RunConfig, questions_cell: dict[str, Any], base: dict[str, Any]) -> Selection:
    questions: list[Record] = questions_cell["questions"]
    reserve: list[Record] = questions_cell.get("sh_reserve", [])
    by_id = {q["id"]: q for q in questions + reserve}
    forget = [by_id[i] for i in base["forget_ids"]]
    multi = [by_id[i] for i in base["multi_hop_ids"]]
    forget_keys = {fact_key(q["target"]) for q in forget}
    asked_sh = [by_id[i] for i in base["answers"] if by_id[i]["type"] == "SH"]
    context = context_facts(asked_sh + [q for q in questions if q["type"] != "SH"], forget_keys)
    scored = {"SH": forget}
    scored.update({t: [q for q in multi if q["type"] == t] for t in cfg.types if t != "SH"})
    retain = [by_id[i] for i in base["retain_ids"]]
    return Selection(by_id, forget, retain, scored, context)


def run_control(cfg: RunConfig) -> dict[str, Any]:
    """results.json's ``run_control``: ``allow_fewer``, and ``controls: false`` with
    ``--no-controls`` only (the default, on, leaves the record as it was before the switch)."""
    return {"allow_fewer": cfg.allow_fewer, **({} if cfg.controls else {"controls": False})}


def results_record(
    cfg: RunConfig,
    *,
    questions_cell: dict[str, Any],
    base: dict[str, Any],
    chosen: Selection,
    run_info: dict[str, Any],
    methods: dict[str, Any],
    judges: dict[str, Any] | None,
) -> dict[str, Any]:
    """results.json (before the engine record): ``run_info`` holds model_path, decoding, bbh and
    timings_s, the parts the run itself knows."""
    by_id, data = chosen.by_id, questions_cell
    scored_ids = [q["id"] for qs in chosen.scored.values() for q in qs] + base["retain_ids"]
    checks = type_checks(base, chosen.scored, {"seed": cfg.seed, "n_resamples": cfg.bootstrap})
    return {
        # the version of results.json's layout (leakres_cli/data/results.schema.json)
        "schema_version": SCHEMA_VERSION,
        "leakres_version": metadata.version("leakres-cli"),
        "config": cfg.fingerprint_dict(),
        "run_control": run_control(cfg),
        "model_path": run_info["model_path"],
        "seed": cfg.seed,
        "versions": library_versions(cfg),
        "decoding": run_info["decoding"],
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
        "bbh": run_info["bbh"],
        "forget_facts": [q["target"] for q in chosen.forget],
        "retain_facts": [q["target"] for q in chosen.retain],
        "scored_questions": {t: len(qs) for t, qs in chosen.scored.items()},
        # Per type: chance level, base model's correct answers, the at-chance gate (leakres' own).
        "types": {
            "checks": checks,
            "at_chance": {t: c["at_chance"] for t, c in checks.items() if c["at_chance"]},
            **coverage(checks, data["counts"], data["shortfall"], cfg.per_type, len(chosen.forget)),
            "labels": {"chance": CHANCE_LABEL},
        },
        "methods": methods,
        "judges": judges,
        # agreement of the scoring judge with leak-metrics' shipped reading labels (None: unknown)
        "judge_labelled_agreement": labelled_agreement(cfg.judge.split(",")[0].strip()),
        "timings_s": run_info["timings_s"],
        # per stage: wall and CPU seconds, tokens generated, optimizer steps (exclusive, like
        # timings_s; a results.json written before the profile has none)
        "profile": run_info.get("profile"),
        "hardware": run_info.get("hardware"),
    }
