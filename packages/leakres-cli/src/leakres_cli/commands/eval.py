"""`leakres eval`: measure a model unlearned elsewhere (bring your own model).

A thin command: its options, then one call, :func:`leakres_cli.eval_api.run_eval`, the same code
:func:`leakres_cli.evaluate` runs. What it does (the run's own stages over the supplied model, the
same results.json, summary.md, tables, plots and report.html) is described there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from leakres_cli.config.eval_config import EVAL_FIELDS
from leakres_cli.config.options import config_options


@click.command("eval")
@click.option(
    "--base", required=True, help="The model before unlearning (anything --model accepts)."
)
@click.option(
    "--unlearned",
    required=True,
    help="The unlearned model: anything --model accepts, or a peft adapter directory "
    "(adapter_config.json; loaded on --base, not merged) or an unlearn-zoo checkpoint.",
)
@click.option(
    "--forget",
    "forget_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help='JSONL of the forgotten facts: {"subject","relation","object"} labels, or SH ids of '
    "the --questions set.",
)
@click.option(
    "--retain",
    "retain_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL of retain facts (same format) [default: chosen among the facts the base model "
    "knows, as `leakres run` does, --n-retain of them].",
)
@click.option(
    "--questions",
    default=None,
    type=click.Path(exists=True, path_type=Path),
    help="A kg-qgen set folder (or questions.jsonl) [default: build from --source every "
    "multi-hop question that reaches a forget fact].",
)
@click.option(
    "--unlearned-endpoint",
    default=None,
    metavar="URL",
    help="An OpenAI-compatible /v1 URL serving the unlearned model (a black box: --unlearned is "
    "then the name it answers to). Its answers, Probab, FocusOnKey's answer and its BBH go there; "
    "the attacks that need its weights are skipped and the summary says so. Key: $OPENAI_API_KEY.",
)
@click.option(
    "--base-endpoint",
    default=None,
    metavar="URL",
    help="An OpenAI-compatible /v1 URL serving the base model (a black box: --base is then the "
    "name it answers to). Its answers (which facts it knows, its accuracy per type) and its BBH "
    "come from there; FocusOnKey (it needs the base weights) is skipped and the summary says so. "
    "With --unlearned-endpoint too, only Probab runs. Key: $OPENAI_API_KEY.",
)
@click.option(
    "--tokenizer",
    default=None,
    metavar="MODEL",
    help="With --base-endpoint: the model whose tokenizer (chat template) formats the prompts; "
    "tokenizer files only [default: --base].",
)
@click.option(
    "--label",
    default="unlearned",
    show_default=True,
    help="The unlearned model's name in results.json and the tables.",
)
@click.option(
    "--adapter-base",
    default=None,
    help="The model a peft adapter attaches to [default: --base].",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leakres-eval"),
    show_default=True,
    help="Output directory (results.json, summary.md, cells/ for resuming).",
)
@config_options(
    EVAL_FIELDS,
    help_texts={
        "seeds": "Comma-separated seeds of the attacks' sampling, e.g. 0,1,2: the attacks run "
        "once per seed on the supplied model (cells under OUT/seeds/SEED/; resumable per seed); "
        "its greedy evaluation, the questions and the base evaluation are --seed's, shared; "
        "results.json's seeds block and the summary give each seed, the mean and the std."
    },
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="ATTACK.FIELD=VALUE",
    help="Override an attack hyperparameter, e.g. --set probab.num_samples=10.",
)
@click.option("--fresh", is_flag=True, help="Ignore finished cells in --out.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option(
    "--check-only",
    is_flag=True,
    help="Check the model paths and which facts the question source can ask (the reason per "
    "fact), print one table and exit (1: something cannot be measured); loads no model.",
)
def eval_command(**params: Any) -> None:
    """Measure leak resistance of a model unlearned elsewhere.

    Same numbers as `leakres run` (FQ per type, S_suc, RR per attack, robustness, utility), for a
    base model, an unlearned model and the facts that were unlearned. Facts the knowledge source
    does not contain, or that the base model does not answer correctly, are listed with the reason;
    the evaluation goes on without them only with --allow-fewer.

    Either model may be a black box behind an OpenAI-compatible endpoint (--base-endpoint,
    --unlearned-endpoint; prompts are formatted here with --tokenizer, default --base, and the key
    is $OPENAI_API_KEY): what needs its weights is skipped and listed in the summary and
    results.json (a black-box unlearned model: quantization, relearn, in_context; a black-box
    base: FocusOnKey). With both behind endpoints only Probab remains.
    """
    from leakres_cli.eval_api import run_eval

    run_eval(params)
