"""``--seeds``: every method's unlearning, evaluation and attacks once per seed, over one set of
questions and one base evaluation (issue 38 item 2).

The shared parts (questions, the base model's answers, the forget/retain selection, teaching,
BBH of the base model) are ``--seed``'s and computed once. For each seed s of ``--seeds`` a
method's cells (unlearn, eval, attacks, BBH) come from a *seed run* (:func:`seed_run`): the run
itself when s is ``--seed`` (so its cells are a plain ``--seed s`` run's, ``OUT/cells/METHOD/``),
else a copy of the run whose configuration has seed s (the unlearning seed, the attacks'
sampling seed, the seed of that seed's bootstrap CIs) and whose cells live in
``OUT/seeds/s/cells/``, keyed on (configuration, s). Each cell is stored when it is finished, so
a crash loses only the cell in progress, and a rerun (or one with more seeds) redoes no finished
(method, seed) cell. BBH uses ``--seed``'s sample of examples at every seed (the BBH ratio
compares the base and the unlearned model on the same examples). ``--save-models`` and
``--report-to`` apply to ``--seed``'s cells only. ``leakres eval --seeds`` is this loop over
the supplied model: its ``ExternalBenchmark`` shares its greedy ``eval`` and BBH cells (``--seed``'s)
with every seed and names what reruns in ``seeds_label``.

results.json: ``methods`` holds the first seed's blocks (one seed: the record it always was);
``seeds`` (with ``--seeds``) each seed's FQ per type, FQ all types / multi-hop, robustness and RR
per attack and hop, with their mean and standard deviation; ``comparisons`` (two methods or
more) the paired tests between methods (:mod:`.comparisons`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from leakres_cli.config.run_config import RunConfig
from leakres_cli.scale.store import CellStore, fingerprint
from leakres_cli.stages.results import Selection
from leakres_cli.stages.scoring import MethodCells

#: the Benchmark methods a seed run takes from the run itself: one model, one judge, one BBH set
SHARED = ("model", "replace_model", "primary_judge", "bbh_data")


def run_seeds(cfg: RunConfig) -> tuple[int, ...]:
    """The seeds every method runs at: ``--seeds``, else ``--seed`` alone."""
    return tuple(cfg.seeds) or (cfg.seed,)


def seed_run(bench: Any, seed: int) -> Any:
    """The run whose stages make ``bench``'s method cells at ``seed`` (module docstring).

    ``bench`` is the pipeline's ``Benchmark``; the copy shares its model, engines, judge, timer
    and BBH data (loaded once), and has its own configuration and cell store."""
    if seed == bench.cfg.seed:
        return bench
    run = copy.copy(bench)
    run.cfg = dataclasses.replace(bench.cfg, seed=seed, save_models=False, report_to="none")
    run.store = seed_store(bench, seed)
    for name in SHARED:
        setattr(run, name, getattr(bench, name))
    bbh_run = copy.copy(run)
    bbh_run.cfg = bench.cfg  # --seed's BBH examples, stored with this seed's cells
    # the run's class's own BBH stage (`leakres eval`'s sends an endpoint's BBH there)
    run.bbh = lambda name, get_model: type(bench).bbh(bbh_run, name, get_model)
    return run


def seed_store(bench: Any, seed: int) -> CellStore:
    """The cell store of ``bench``'s method cells at ``seed``: the run's own at ``--seed``, else
    ``OUT/seeds/SEED/cells/`` keyed on the run's key (a grid cell's is its whole grid's:
    `leakres run --cell`) and the seed."""
    if seed == bench.cfg.seed:
        return bench.store

    def key(run: str) -> str:
        return fingerprint({"run": run, "run_seed": seed})

    earlier = tuple(key(k) for k in bench.store.accepted)
    return CellStore(
        bench.out_dir / "seeds" / str(seed),
        key(bench.store.config_fingerprint),
        bench.store.weights,
        accepted=earlier,
    )


@dataclass
class SeedScores:
    """Every method's cells and score blocks at every seed.

    Attributes:
        seeds: the seeds, in ``--seeds`` order (the first one's blocks are ``methods``).
        cells: method -> seed -> its cells.
        scores: method -> seed -> its results.json block (``Benchmark.score_cells``).
        explicit: whether ``--seeds`` was given (then results.json has a ``seeds`` block).
        label: what a seed reruns, as the ``seeds`` block says it (the run's ``seeds_label``).
    """

    seeds: tuple[int, ...]
    explicit: bool
    label: str = ""
    cells: dict[str, dict[int, MethodCells]] = field(default_factory=dict)
    scores: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)

    @property
    def methods(self) -> dict[str, Any]:
        """results.json's ``methods``: each method's block at the first seed."""
        return {m: by_seed[self.seeds[0]] for m, by_seed in self.scores.items()}

    def blocks(self, cfg: RunConfig, chosen: Selection, base: dict[str, Any]) -> dict[str, Any]:
        """The results.json blocks this module adds: ``seeds`` (with ``--seeds``) and
        ``comparisons`` (two methods or more); none for one method at one seed."""
        from leakres_cli.stages.comparisons import comparisons_record

        out: dict[str, Any] = {}
        if self.explicit:
            out["seeds"] = seeds_record(cfg, self)
        if len(self.cells) > 1:
            out["comparisons"] = comparisons_record(cfg, self.seeds, self.cells, chosen, base)
        return out


def score_seeds(
    bench: Any,
    chosen: Selection,
    base: dict[str, Any],
    bbh_base: dict[str, Any] | None,
    done: Callable[[str], None],
) -> SeedScores:
    """Run (or read back) and score every method at every seed, method by method (``done(method)``
    after each); ``bench`` is the pipeline's ``Benchmark``."""
    cfg = bench.cfg
    seeds = run_seeds(cfg)
    runs = {s: seed_run(bench, s) for s in seeds}
    out = SeedScores(
        seeds, explicit=bool(cfg.seeds), label=getattr(bench, "seeds_label", SEEDS_LABEL)
    )
    for method in cfg.methods:
        for s in seeds:
            cells = runs[s].method_cells(method, chosen, base)
            block = runs[s].score_cells(cells, chosen, base, bbh_base)  # CIs seeded with s
            out.cells.setdefault(method, {})[s] = cells
            out.scores.setdefault(method, {})[s] = block
        done(method)
    return out


SEEDS_LABEL = (
    "each seed reruns the unlearning, the evaluation and the attacks' sampling of every method "
    "on the same questions and base evaluation (--seed's); mean over the seeds where the metric "
    "is defined, std = sample standard deviation (ddof 1; none for one seed)"
)


def seeds_record(cfg: RunConfig, scores: SeedScores) -> dict[str, Any]:
    """results.json's ``seeds``: per method, each seed's value, mean and std of FQ per type, FQ all
    types and multi-hop, robustness, the utility ratio and RR per (attack, hop)."""
    methods = {}
    for method, by_seed in scores.scores.items():

        def over(path: tuple[str, ...], blocks: dict[int, dict[str, Any]] = by_seed) -> dict:
            return _summary({s: _dig(block, path) for s, block in blocks.items()})

        first = by_seed[scores.seeds[0]]
        methods[method] = {
            "fq": {t: over(("per_type", t, "fq")) for t in first["per_type"]},
            "fq_all_types": over(("fq_all_types",)),
            "fq_multi_hop": over(("fq_multi_hop",)),
            "robustness": over(("robustness",)),
            "utility": over(("utility", "ratio")),
            "rr": {
                attack: {hop: over(("attacks", attack, f"rr_{hop}")) for hop in ("SH", "MH", "all")}
                for attack in first["attacks"]
            },
        }
    return {
        "seeds": list(scores.seeds),
        "data_seed": cfg.seed,
        "reported_seed": scores.seeds[0],
        "label": scores.label or SEEDS_LABEL,
        "methods": methods,
    }


def _dig(block: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    for key in path:
        block = (block or {}).get(key)  # type: ignore[assignment]
    return block


def _summary(values: dict[int, dict[str, Any] | None]) -> dict[str, Any]:
    """leak-metrics' seed summary of ``{seed: MetricValue dict}`` as JSON (seeds as strings)."""
    from leak_metrics import MetricValue, summarize_seeds

    summary = summarize_seeds(
        {
            s: MetricValue.from_dict(v) if v else MetricValue.undefined("missing")
            for s, v in values.items()
        }
    )
    return {
        "mean": summary.mean,
        "std": summary.std,
        "per_seed": {str(s): v for s, v in summary.per_seed.items()},
        "n_defined": summary.n_defined,
    }
