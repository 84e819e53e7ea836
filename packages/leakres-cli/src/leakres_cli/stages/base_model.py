"""theta_p other than the pretrained model: ``--base tuned`` and ``--base taught`` (issue 36).

* ``tuned``: after the questions are built, the model is fine-tuned (unlearn-zoo's
  :func:`~unlearn_zoo.teach`) on worked examples of every multi-hop type of the run, built by
  kg-qgen on the run's own source from facts the run neither unlearns, retains nor scores
  (:func:`leakres_cli.stages.base_stage.protected_facts`); every question resting on a worked example's
  fact is then dropped, so no fact the model was trained on can become a forget or retain fact or
  sit in a scored question. It learns the answer form only. (With ``--teach-source`` the worked
  examples come from that source and avoid every fact of the run's questions.)
* ``taught``: the model is taught every fact of the run's source (``--teach-statements``
  statements and one single-hop question each: the run's own single-hop question of the fact,
  as the run asks it; the aliases of their entities) plus worked examples from
  ``--teach-source`` (facts stated once each); made for ``--source fictional``,
  knowledge the model cannot have had. After the forget facts are chosen, a **control** model is
  taught the same corpus without the forget facts' statements and questions and answers the
  scored questions: its per-type accuracy, beside
  the taught model's, shows how much of a multi-hop answer comes from the taught fact.

The taught weights are cached under ``OUT/cache/base-model/<key>/`` (``model.safetensors``,
``teach.json``: the teaching record, ``corpus.jsonl``: the examples taught), the key a hash of
the pretrained weights' digest, the sources, the teaching settings, the corpus' digest and the
seed: a rerun or a resumed run loads them instead of training.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from leakres_cli.config.run_config import RunConfig
from leakres_cli.records import FactKey, Record, fact_key
from leakres_cli.scale.store import write_dir_atomic, write_json_atomic

#: teaching token budget (unlearn-zoo TeachSettings; not a run option)
TEACH_MAX_LENGTH = 192
#: statements taught per fact a worked example rests on (no question: the budget)
WORKED_FACT_STATEMENTS = 1


class TeachingHost(Protocol):
    cfg: RunConfig
    out_dir: Path
    progress: bool

    def model(self) -> tuple[Any, Any]: ...

    def pretrained_model(self) -> tuple[Any, Any]: ...

    def replace_model(self, model: Any) -> None: ...


def question_facts(questions: Iterable[Record]) -> set[FactKey]:
    """Every premise fact (label triple) of ``questions``; a record without premises: its target."""
    out: set[FactKey] = set()
    for q in questions:
        out.update(fact_key(p) for p in q.get("premises") or [q["target"]])
    return out


def teach_settings(cfg: RunConfig) -> Any:
    from unlearn_zoo import TeachSettings

    return TeachSettings(
        lr=cfg.teach_lr,
        epochs=cfg.teach_epochs,
        batch_size=cfg.teach_batch,
        max_length=TEACH_MAX_LENGTH,
        seed=cfg.seed,
    )


def load_teach_source(cfg: RunConfig) -> Any:
    """The graph of the worked examples: ``--teach-source NAME`` or ``NAME:INPUT`` (e.g.
    ``fictional:small,seed=1``), None when unset (the run's own source)."""
    import kg_qgen

    if not cfg.teach_source:
        return None
    name, _, given = cfg.teach_source.partition(":")
    return kg_qgen.load_source(name, given or None)


def build_corpus(
    cfg: RunConfig,
    data: dict[str, Any],
    *,
    without: Iterable[FactKey] = (),
    exclude: set[FactKey] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The teaching examples of ``cfg.base`` for the run's questions cell ``data`` and what they
    hold (``counts`` per kind, ``worked_available`` per type, ``worked_facts``). ``without``: facts
    whose statements are left out (the control model); ``exclude``: the facts no worked example
    may rest on (default: every fact of every question of the run).

    Worked examples (``--teach-examples`` per multi-hop type of the run) rest on no fact of any
    question of the run; ``tuned`` is taught those only (the answer form). ``taught`` adds every
    fact of the run's source (``--teach-statements`` statements and one question each,
    :func:`asked_prompts`) and the facts the worked examples rest on
    (:data:`WORKED_FACT_STATEMENTS` statement each), so the worked examples show how known facts
    compose.
    """
    import kg_qgen
    from kg_qgen import render_prompt
    from kg_qgen.teaching import teaching_corpus

    graph = kg_qgen.load_source(cfg.source, cfg.source_path)
    teach_graph = load_teach_source(cfg) or graph
    excluded = question_facts(data["questions"]) if exclude is None else exclude
    multi = tuple(t for t in cfg.types if t != "SH")
    corpus = teaching_corpus(
        teach_graph,
        statement_facts=(),
        exclude=excluded,
        per_type=cfg.teach_examples,
        types=multi,
        seed=cfg.seed,
        # asked as the run asks its questions (the prompt form), so the taught form is the asked one
        prompt_of=lambda q: render_prompt(q, cfg.prompt_form),
    )
    worked = list(corpus.examples)
    worked_facts = {fact_key(p) for e in worked for p in e["facts"]}
    examples: list[dict[str, Any]] = []
    stated: set[FactKey] = set()
    if cfg.base == "taught":
        examples, stated = _taught_statements(cfg, data, graph, teach_graph, worked_facts, without)
    examples += worked
    counts: dict[str, int] = {}
    for e in examples:
        counts[e["kind"]] = counts.get(e["kind"], 0) + 1
    info = {
        "counts": counts,
        "n_examples": len(examples),
        "n_stated_facts": len(stated),
        "worked_available": corpus.worked_available,
        "worked_facts": sorted(worked_facts),
        "n_excluded_facts": len(excluded),
        "teach_source": cfg.teach_source or cfg.source,
    }
    return examples, info


def _taught_statements(
    cfg: RunConfig,
    data: dict[str, Any],
    graph: Any,
    teach_graph: Any,
    worked_facts: set[FactKey],
    without: Iterable[FactKey],
) -> tuple[list[dict[str, Any]], set[FactKey]]:
    """``taught``'s statement examples and the facts they state: the worked examples' facts
    (:data:`WORKED_FACT_STATEMENTS` each) and every fact of the run's source but ``without``."""
    examples = _statements(teach_graph, worked_facts, WORKED_FACT_STATEMENTS, 0, cfg.seed)
    stated = {fact_key(graph.fact_dict(f)) for f in graph.facts()} - set(without)
    asked = asked_prompts(cfg, data)
    examples += _statements(graph, stated - worked_facts, cfg.teach_statements, 1, cfg.seed, asked)
    return examples, stated | worked_facts


def asked_prompts(cfg: RunConfig, data: dict[str, Any]) -> dict[FactKey, str]:
    """Per fact, the run's own single-hop question of it as the run asks it (``--prompt-form``):
    the question a taught fact is taught with. One random direct question per fact taught that
    wording more than the fact: 57 of 179 fictitious facts were known in the run's wording, 152
    in the taught one (README, "Base models")."""
    from kg_qgen import render_prompt

    pool = [*data["questions"], *data.get("sh_reserve", [])]
    return {
        fact_key(q["target"]): render_prompt(q, cfg.prompt_form) for q in pool if q["type"] == "SH"
    }


def _statements(
    graph: Any,
    facts: set[FactKey],
    statements: int,
    questions: int,
    seed: int,
    asked: dict[FactKey, str] | None = None,
) -> list[dict[str, Any]]:
    """Statements, questions and aliases of ``facts`` (kg-qgen's teaching corpus, no worked ones)."""
    from kg_qgen.teaching import teaching_corpus

    if not facts:
        return []
    return teaching_corpus(
        graph,
        statement_facts=facts,
        statements=statements,
        questions=questions,
        types=(),
        seed=seed,
        asked=asked,
    ).examples


def corpus_digest(examples: list[dict[str, Any]]) -> str:
    text = json.dumps(examples, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(cfg: RunConfig, role: str, base_digest: str | None, digest: str) -> str:
    key = {
        "role": role,
        "model": cfg.model,
        "weights": base_digest,
        "source": [cfg.source, cfg.source_path, cfg.teach_source],
        "settings": teach_settings(cfg).to_dict(),
        "corpus": digest,
        "seed": cfg.seed,
        "dtype": cfg.dtype,
    }
    if role == "control":
        # controls cached before 6 Dec 2026 were taught from theta_p, not from the pretrained
        # model (the control then knew 24 of 48 forget facts it was never taught): never reuse one
        key["start"] = "pretrained"
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def taught_model(
    host: TeachingHost, examples: list[dict[str, Any]], role: str, base_digest: str | None
) -> tuple[Any, dict[str, Any]]:
    """The pretrained model taught ``examples``: loaded from the run's cache when this key was
    trained before, else trained (unlearn-zoo ``teach``) and cached. Returns (model, record)."""
    import copy

    from safetensors.torch import load_model, save_model

    digest = corpus_digest(examples)
    key = cache_key(host.cfg, role, base_digest, digest)
    folder = host.out_dir / "cache" / "base-model" / key
    # the pretrained weights, not theta_p: once theta_p is taught it is the run's model()
    pretrained, tokenizer = host.pretrained_model()
    weights, record_file = folder / "model.safetensors", folder / "teach.json"
    if weights.is_file() and record_file.is_file():
        start = time.perf_counter()
        model = copy.deepcopy(pretrained)
        load_model(model, str(weights))
        record = json.loads(record_file.read_text(encoding="utf-8"))
        record["cache"] = {"key": key, "hit": True, "load_s": round(time.perf_counter() - start, 3)}
        return model, record
    from unlearn_zoo import teach

    done = teach(pretrained, tokenizer, examples, teach_settings(host.cfg), progress=host.progress)
    record = {**done.record, "corpus_digest": digest, "role": role}

    def fill(tmp: Path) -> None:
        save_model(done.model, str(tmp / "model.safetensors"))
        write_json_atomic(tmp / "teach.json", record)
        lines = (json.dumps(e, ensure_ascii=False) for e in examples)
        (tmp / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    write_dir_atomic(folder, fill)
    record["sha256"] = hashlib.sha256(weights.read_bytes()).hexdigest()
    write_json_atomic(record_file, record)
    return done.model, {**record, "cache": {"key": key, "hit": False}}
