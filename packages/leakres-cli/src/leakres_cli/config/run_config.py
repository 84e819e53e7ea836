"""Run configuration and the named presets ``leakres run --preset`` accepts."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from leakres_cli.errors import LeakresError

#: the ``types`` value of the presets that run every question type: :func:`preset_config` replaces
#: it with kg-qgen's registry (built-ins, then plugin types) when the preset is filled, so the CLI
#: keeps no list of types of its own (issue 37 item 5).
EVERY_TYPE = ("all",)
#: kg-qgen's prompt forms (``kg_qgen.PROMPT_FORMS``, kept literal for the same reason; the root
#: test tests/test_shared_contracts.py keeps this copy equal): the first is the default.
PROMPT_FORMS = ("answer-form", "bare")


def known_types() -> list[str]:
    """Every question type kg-qgen has registered: the built-ins, then plugin types."""
    from kg_qgen import question_type_codes

    return question_type_codes()


def multi_hop_types(types: Iterable[str] = ()) -> frozenset[str]:
    """The multi-hop codes among kg-qgen's built-in types and ``types`` (kg-qgen's registry says
    which type is multi-hop); what leak-metrics' ``hop_of`` takes as ``multi_hop_types``."""
    from kg_qgen import QUESTION_TYPES, get_question_type

    codes = dict.fromkeys([*QUESTION_TYPES, *types])
    return frozenset(t for t in codes if get_question_type(t).multi_hop)


#: the paper's three models, by Hugging Face id (section 5 / appendix D)
PAPER_MODELS = ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-14B", "Qwen/Qwen3-32B")


@dataclass
class RunConfig:
    """Everything that determines the numbers of a run (recorded into results.json).

    The descriptions below are also the help text of the `leakres run`, `plan` and `tune` options
    (:mod:`leakres_cli.config.options` reads them), so they are written for a user.

    Attributes:
        model: registered model name, local directory, .gguf file or Hugging Face id.
        source: knowledge source (kg-qgen): ``builtin``, ``mquake`` or ``triples``.
        source_path: input file for ``--source mquake``/``triples``.
        types: question types to build and score; SH is always included (it selects the forget facts).
        per_type: multi-hop questions built per type (kg-qgen balanced sampling).
        sh_pool: single-hop questions asked to the base model to find facts it knows: the SH question of
            every fact the multi-hop questions reach, plus a seeded sample of other facts up to this size.
        n_forget: forget facts (single-hop facts the base model answers correctly) to unlearn. The
            default, 48, keeps the single-hop FQ 95% CI within +/-14.6 points whatever the outcome
            (1000-resample percentile bootstrap, worst case over every possible number of facts
            forgotten; the default run measured 62.5 [48, 77]); 12 facts gave +/-25.
        n_retain: retain facts (other correctly answered facts, disjoint from the forget facts).
        methods: unlearning methods (unlearn-zoo names, see `leakres list`), one grid row each.
        method_overrides: per-method config overrides, e.g. ``{"ga": {"lr": 1e-5}}``.
        attacks: recovery attacks (recover-attacks names, see `leakres list`), run on S_suc of each method.
        attack_overrides: per-attack config overrides, e.g. ``{"quantization": {"method": "fp4"}}``.
        attack_budgets: recovery curves over attack budget: ``none`` (each attack at its one
            setting), ``default`` (every attack's default ladder, e.g. Probab N = 1,2,5,10,20 from
            one draw of N = 20) or ladders per attack, ``probab=1,2,5,10,20;relearn=1,5``. Each
            ladder run (Probab: one, other attacks: one per rung) is a cell beside the attack's
            usual one. Not part of the cell fingerprint.
        judge: judge, or several (``alias,llm``): the first scores every metric; the others judge the same
            answers and their agreement with it (Cohen's kappa) is reported.
        judge_model: model of the ``llm`` judge (an OpenAI-compatible endpoint).
        judge_base_url: endpoint of the ``llm`` judge; the API key is read from LEAKRES_API_KEY,
            LEAK_METRICS_API_KEY or OPENAI_API_KEY only, never from an option, and is never written
            or printed. A query string (``?api_key=``) is refused; ``user:password@`` is shown as ***.
        judge_timeout: seconds one request to the ``llm`` judge may take; the endpoint check before
            any work waits at most 10 of them, without retries. Not part of the cell fingerprint.
        judge_retries: extra attempts after a failed judge request (the openai client's backoff);
            an item still failing is unjudged, and a rerun asks again. Not part of the fingerprint.
        seed: global seed (data sampling, training, sampling attacks, bootstrap).
        seeds: seeds of the unlearning and the attacks' sampling, e.g. ``0,1,2``: every method's
            unlearning, evaluation and attacks run once per seed (cells under OUT/seeds/SEED/;
            ``--seed``'s own are the run's cells), on the questions and base evaluation of
            ``--seed``, computed once. results.json gains each seed's FQ, RR and robustness, their
            mean and standard deviation; method blocks and tables are the first seed's. Empty =
            ``--seed`` alone. Not part of the cell fingerprint.
        batch_size: generation batch size: most sequences (rows) decoded at once; a sampled
            prompt takes ``num_samples`` rows, so Probab decodes ``batch_size // num_samples``
            prompts at once (at least one). Bounds memory, never changes an answer beyond float ties.
        max_new_tokens: tokens generated per answer (evaluation and every attack: one budget).
        prompt_form: how each question is put to the model, in the evaluation and every attack:
            ``answer-form`` (the question, then its type's answer-form instruction from kg-qgen,
            e.g. "Give only the answer.") or ``bare`` (the question alone, the paper's prompt).
        bootstrap: bootstrap resamples for the 95% confidence intervals.
        bbh_tasks: BIG-Bench-Hard tasks for the utility ratio, or ``all`` (the 27 tasks); empty = off, and
            utility is then the retain-accuracy ratio (stated as such in results.json).
        bbh_limit: examples per BBH task (seeded sample; 0 = all).
        bbh_cot: chain-of-thought BBH prompts (paper setting; slow on CPU) instead of direct answers.
        data_dir: the data root (as ``$LEAKRES_DATA_DIR``); BBH is read from ``DATA_DIR/bbh`` the way
            leak-metrics documents it (``bbh/<task>.json``, ``cot-prompts/<task>.txt``). Unset: the
            variable, else leak-metrics' own fallback (download into its cache).
        allow_fewer: when the base model knows fewer facts than ``--n-forget + --n-retain`` (after asking
            every single-hop fact of the knowledge base), run with fewer instead of stopping before
            training. Not part of the cell fingerprint: it decides only whether a short run may go on.
        models: the grid's models (a multi-model preset such as ``paper``); empty = just ``model``.
            With several, ``leakres run`` runs each into ``OUT/<model slug>/``.
        dtype: weights' dtype: ``float32``, ``bfloat16``, or ``auto`` (bfloat16 on CUDA, else float32).
        engine: who generates: ``local`` (in-process) or ``openai``: an OpenAI-compatible server that
            leakres starts per model with ``--engine-cmd`` (the base model from its path, each unlearned
            model saved to OUT/engine/models/ as safetensors first) for the evaluation and the sampling
            attacks (probab, focus_on_key). Unlearning, BBH, FocusOnKey's key-token search, the attacks
            that need the weights (quantization, relearn) and in_context stay in-process
            (:mod:`leakres_cli.models.engines`).
        engine_cmd: server command template for ``--engine openai``, with ``{model}`` and ``{port}`` (and
            optional ``{host}``), e.g. ``'vllm serve {model} --port {port}'``.
        engine_prompts: what is sent to the server: ``ids`` (token ids, exact; no second BOS) or ``text``
            (servers that take text only, e.g. Ollama).
        method_settings: name of the shipped per-(method, model) settings table applied under
            ``--set`` (``paper``: :mod:`leakres_cli.config.paper_settings`); None = unlearn-zoo's defaults.
        judge_required: fail before any work when the llm judge has no model/endpoint (``paper``).
        save_models: save each unlearned model into OUT/models/METHOD (ARCHITECTURE.md section 8) when
            it is trained, with the run's forget/retain facts and questions in OUT/models/ (the inputs
            of `leakres eval`). Not part of the cell fingerprint.
        report_to: experiment tracking: none, tensorboard (event files under OUT/tracking), wandb
            (offline unless $WANDB_MODE says otherwise) or mlflow ($MLFLOW_TRACKING_URI, default
            OUT/tracking/mlruns): each method's training curve (the trainer's report_to) and the
            run's metrics at the end. Not part of the cell fingerprint.
        base: theta_p, the model the run unlearns: ``pretrained`` (the model as loaded),
            ``tuned`` (fine-tuned first on worked examples of every multi-hop type built on
            facts the run neither unlearns, retains nor scores: the answer form) or
            ``taught`` (taught every fact of the source, several statements each, plus those
            worked examples; for ``--source fictional``; a control model taught the same without
            the forget facts' statements answers the scored questions beside it).
        teach_source: knowledge source of the worked examples of ``--base tuned|taught`` (kg-qgen
            name, e.g. ``fictional``); unset: the run's own source.
        teach_examples: worked examples per multi-hop type (``--base tuned|taught``).
        teach_statements: statements taught per fact (``--base taught``), besides two
            single-hop questions.
        teach_epochs: epochs of the teaching fine-tune (``--base tuned|taught``).
        teach_lr: learning rate of the teaching fine-tune (``--base tuned|taught``).
        teach_batch: examples per optimizer step of the teaching fine-tune (``--base
            tuned|taught``): memorising facts takes updates more than epochs (README, "Base
            models": asked the taught question, batch 4 knew 121 of 179 fictitious facts after three
            epochs, batch 8 97).
        eval_every: unlearning trajectories: every this many optimizer steps of each method's
            unlearning, answer a fixed seeded subset of the forget and retain questions (up to 8
            per type and 8 retain; judged by the run's judge) and record FQ per type, retain
            accuracy and the training loss (results.json's ``trajectory``, a report figure);
            0 = off. The final model is the same with or without it. Not part of the cell
            fingerprint.
        controls: the controls beside every RR and FQ (on by default): each attack run again on
            items the base model never answered correctly (its false-recovery rate; up to twice
            the attack stage's time) and the knowledge-free FQ. ``--no-controls`` runs neither;
            results.json, summary.md, the tables and the report then say "controls: off". Not
            part of the cell fingerprint (the control attacks are cells of their own).
    """

    model: str = "smollm2-135m-instruct"
    source: str = "builtin"
    source_path: str | None = None
    types: tuple[str, ...] = ("SH", "HS")
    per_type: int = 40
    sh_pool: int = 128
    n_forget: int = 48
    n_retain: int = 24
    methods: tuple[str, ...] = ("ga",)
    method_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    attacks: tuple[str, ...] = ("probab",)
    attack_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    attack_budgets: str = "none"
    judge: str = "alias"
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_timeout: float = 60.0
    judge_retries: int = 3
    seed: int = 0
    seeds: tuple[int, ...] = ()
    batch_size: int = 64  # the engine's fastest on CPU (README, Speed)
    max_new_tokens: int = 24
    prompt_form: str = PROMPT_FORMS[0]
    bootstrap: int = 1000
    bbh_tasks: tuple[str, ...] = ()
    bbh_limit: int = 5
    bbh_cot: bool = False
    data_dir: str | None = None
    allow_fewer: bool = False
    models: tuple[str, ...] = ()
    dtype: str = "float32"
    engine: str = "local"
    engine_cmd: str | None = None
    engine_prompts: str = "ids"
    method_settings: str | None = None
    judge_required: bool = False
    save_models: bool = False
    report_to: str = "none"
    base: str = "pretrained"
    teach_source: str | None = None
    teach_examples: int = 30
    teach_statements: int = 3
    teach_epochs: float = 2.0
    teach_lr: float = 2e-4
    teach_batch: int = 8
    eval_every: int = 0
    controls: bool = True

    def __post_init__(self) -> None:
        # `--seeds 0,1` arrives as strings (a comma list option); refused there unless integers
        self.seeds = tuple(int(s) for s in self.seeds)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def fingerprint_dict(self) -> dict[str, Any]:
        """The fields that determine the numbers: cells are keyed on these (results.json's ``config``).

        ``allow_fewer`` is left out so that a run stopped for too few known facts can be rerun with
        ``--allow-fewer`` and reuse the base model's answers instead of recomputing them. With
        ``base`` pretrained the teaching fields are left out too: they change nothing, and a
        pretrained run keeps the fingerprint (and results.json) it had before they existed.
        """
        skip = RUN_CONTROL_FIELDS + (TEACH_FIELDS if self.base == "pretrained" else ())
        return {k: v for k, v in self.to_dict().items() if k not in skip}


# attack_budgets: a ladder's cells are named by their rung, so it changes no other cell
RUN_CONTROL_FIELDS = (
    "allow_fewer",
    "save_models",
    "report_to",
    "judge_timeout",
    "judge_retries",
    "attack_budgets",
    "eval_every",  # the trajectory cell records it; the unlearned model does not depend on it
    "seeds",  # which seeds run, not what one seed's cells hold (stages/seeds.py)
    "controls",  # whether the control cells (METHOD/control-ATTACK) run; no other cell changes
)
#: the fields of ``--base tuned|taught`` (base_model.py); not in a pretrained run's fingerprint
TEACH_FIELDS = (
    "base",
    "teach_source",
    "teach_examples",
    "teach_statements",
    "teach_epochs",
    "teach_lr",
    "teach_batch",
)
#: the trackers of ``--report-to`` (unlearn_zoo.tracking.REPORT_TO, without importing unlearn-zoo)
REPORT_TO = ("none", "tensorboard", "wandb", "mlflow")

# The full preset's utility subset: a few BBH tasks, a few seeded items each, answer-only prompts
# (chain-of-thought generations of a 135M model mostly hit the token cap; leak-metrics README).
FULL_BBH_TASKS = ("boolean_expressions", "sports_understanding", "navigate")
FULL_BBH_LIMIT = 5


# Multi-hop questions built per type by the `types` and `full` presets: enough that every type has at
# least 40 scored questions (multi-hop questions whose target is one of the 48 forget facts) on the
# built-in facts with the default model. Measured with SmolLM2-135M-Instruct's real single-hop answers
# (250 of the 370 facts known then): 40 per type gave 8 (DS) to 22 scored; 200 gave 44 (LL) to 78 (MT).
# After kg-qgen's KB audit (172 of 289 known) 200 gives DS 39 to HS 63 (README, open).
# tests/test_preset_sizes.py.
TYPES_PER_TYPE = 200

# The `tuned` and `taught` presets (issue 36; leakres-cli README, "Base models"). `tuned`: worked
# examples on built-in facts outside the run's forget/retain/scored facts (base_stage.py); worked
# examples on fictitious facts teach a real-knowledge model to answer with invented names (measured:
# it then knew 5 of 289 built-in facts). `taught`: worked examples from a small fictitious KB of
# another seed: no name of it is a real entity's or the taught KB's, so they rest on no fact of
# the run. The taught KB: kg-qgen's fictional source at its small size with more persons, cities
# and aliases (179 facts), the smallest size tried whose questions reach 40 scored per type.
# Teaching it: batch 4 for five epochs (batch 8 at lr 3e-4 knew 97 of 179 after three epochs, batch
# 4 121 after three and 152 after five). Each fact is asked with the run's own single-hop question
# (one random direct question knew 57 of 179 in the run's wording) and stated three times: with
# one statement 173 of 179 were known, with three 179 (README, "Base models"). GA at unlearn-zoo's
# default lr 1e-5 left every taught fact known; the preset's 5e-5 forgets 10% of them, 1e-4
# (one-statement model) 81% but also 71% of the retain facts: settings for taught models are open.
TEACH_SOURCE = "fictional:small,seed=1"
# measured (README): 24 per type (the source has 4 MP and 2 MT disjoint ones), lr 1e-4, 2 epochs:
# 90 examples, 24 steps, 230 s on the loaded 2-core machine; every type's base accuracy then has
# its 95% CI above chance (12 per type left DS and MT at chance).
TUNED_EXAMPLES = 24
TUNED_LR = 1e-4
TAUGHT_KB = "small,persons=40,cities_per_country=3,alias_share=0.8"
TAUGHT_PER_TYPE = 200
TAUGHT_EPOCHS = 5.0
TAUGHT_BATCH = 4
TAUGHT_STATEMENTS = 3
TAUGHT_GA_LR = 5e-5


PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "smoke": (
        "SH + HS on the built-in facts, 48 forget facts (single-hop FQ 95% CI at most +/-14.6 points), "
        "GA, Probab attack; a few minutes on a laptop CPU",
        {},
    ),
    "types": (
        "all seven question types on the built-in facts (200 built per type, so each has at least 40 "
        "scored questions with the default model), GA and NPO (a pair for the paired tests of "
        "--seeds), Probab attack",
        {"types": EVERY_TYPE, "per_type": TYPES_PER_TYPE, "methods": ("ga", "npo")},
    ),
    "full": (
        "all types, GA/NPO/RMU/TV/PALU/AS, Probab/FocusOnKey/Quantization, BBH utility on a small "
        "seeded subset; needs a GPU for real models",
        {
            "types": EVERY_TYPE,
            "per_type": TYPES_PER_TYPE,
            "methods": ("ga", "npo", "rmu", "tv", "palu", "as"),
            "attacks": ("probab", "focus_on_key", "quantization"),
            "bbh_tasks": FULL_BBH_TASKS,
            "bbh_limit": FULL_BBH_LIMIT,
            "bbh_cot": False,
        },
    ),
    "tuned": (
        "the types preset on a tuned base model: SmolLM2 first fine-tuned on worked examples of "
        "every type built on built-in facts the run neither unlearns, retains nor scores",
        {
            "types": EVERY_TYPE,
            "per_type": TYPES_PER_TYPE,
            "base": "tuned",
            "teach_examples": TUNED_EXAMPLES,
            "teach_lr": TUNED_LR,
        },
    ),
    "taught": (
        "all seven types on a small fictitious knowledge base the model is taught first (every "
        "fact, several statements each, plus worked examples), with a control model taught it "
        "without the forget facts",
        {
            "types": EVERY_TYPE,
            "source": "fictional",
            "source_path": TAUGHT_KB,
            "per_type": TAUGHT_PER_TYPE,
            "base": "taught",
            "teach_source": TEACH_SOURCE,
            "teach_examples": 8,
            "teach_statements": TAUGHT_STATEMENTS,
            "teach_epochs": TAUGHT_EPOCHS,
            "teach_lr": 3e-4,
            "teach_batch": TAUGHT_BATCH,
            "method_overrides": {"ga": {"lr": TAUGHT_GA_LR}},
            # a fact the teaching did not fix is not selected; with fewer than 48 + 24 known the
            # run goes on with what is known (README)
            "allow_fewer": True,
        },
    ),
    "paper": (
        "the paper's grid: MQuAKE, 500 questions per type, Llama-3.1-8B/Qwen3-14B/Qwen3-32B, six "
        "methods with per-(method, model) settings, Probab/FocusOnKey/Quantization INT4, LLM judge, "
        "BBH 27 tasks with CoT, bf16 on CUDA, the bare question as prompt (see `leakres plan "
        "--preset paper`)",
        {
            "source": "mquake",
            "source_path": "MQuAKE-CF-3k-v2",  # canonical file (kg-qgen downloads it once, pinned)
            "types": EVERY_TYPE,
            "per_type": 500,
            "model": PAPER_MODELS[0],
            "models": PAPER_MODELS,
            "methods": ("ga", "npo", "rmu", "tv", "palu", "as"),
            "attacks": ("probab", "focus_on_key", "quantization"),
            # bitsandbytes' 4-bit load (fp4, the paper code's default) = table 5's INT4 precision
            "attack_overrides": {"quantization": {"method": "fp4"}},
            "judge": "llm",
            "judge_required": True,
            "bbh_tasks": ("all",),
            "bbh_limit": 0,
            "bbh_cot": True,
            "dtype": "auto",
            "method_settings": "paper",
            "prompt_form": "bare",  # the paper asks the bare question
        },
    ),
}


def refuse_duplicates(names: Iterable[str], option: str, *, fold: bool) -> None:
    """A one-line LeakresError when ``names`` lists one name twice (``fold``: compared without
    case, as the method and attack registries look names up), e.g. ``--methods ga,ga``."""
    seen: dict[str, str] = {}
    for name in names:
        key = name.lower() if fold else name
        if key in seen:
            same = "" if seen[key] == name else f" ('{seen[key]}' and '{name}': names ignore case)"
            raise LeakresError(f"{option} lists '{name}' twice{same}; give each name once")
        seen[key] = name


def preset_config(name: str, **overrides: Any) -> RunConfig:
    if name not in PRESETS:
        close = difflib.get_close_matches(name, list(PRESETS), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise LeakresError(f"unknown preset '{name}'{hint} Known: {', '.join(PRESETS)}")
    values = dict(PRESETS[name][1])
    values.update({k: v for k, v in overrides.items() if v is not None})
    if tuple(values.get("types", ())) == EVERY_TYPE:  # the registry's types, read now
        values["types"] = tuple(known_types())
    return check_fields(RunConfig(**values))


def check_fields(cfg: RunConfig) -> RunConfig:
    """``cfg`` with SH first among its types, once its types (kg-qgen's registry), sizes, prompt
    form and token budget are checked; a one-line LeakresError names the first wrong field."""
    cfg = dataclasses.replace(cfg)
    refuse_duplicates(cfg.types, "--types", fold=False)
    known = known_types()
    unknown = [t for t in cfg.types if t not in known]
    if unknown:  # codes are exact, as in kg-qgen's registry: 'hs' is refused, with a hint
        close = difflib.get_close_matches(unknown[0].upper(), known, n=1)
        hint = f" (did you mean '{close[0]}'? type codes are upper-case)" if close else ""
        raise LeakresError(f"unknown question type(s) {unknown}{hint}; known: {', '.join(known)}")
    if "SH" not in cfg.types:
        cfg.types = ("SH", *cfg.types)
    if cfg.n_forget < 1:
        raise LeakresError("--n-forget must be at least 1")
    if cfg.n_retain < 0:
        raise LeakresError("--n-retain must be at least 0")
    if cfg.prompt_form not in PROMPT_FORMS:
        raise LeakresError(
            f"unknown --prompt-form '{cfg.prompt_form}'; known: {', '.join(PROMPT_FORMS)}"
        )
    if cfg.max_new_tokens < 1:
        raise LeakresError("--max-new-tokens must be at least 1")
    return cfg
