"""click options of `leakres run`, `plan` and `tune`, generated from :class:`~leakres_cli.config.run_config.RunConfig`.

One source of truth: each option's name (``--n-forget`` for ``n_forget``), value type (from the field's
annotation: int, str, bool -> ``--x/--no-x``, tuple -> comma list), help text (the field's entry in the
RunConfig docstring's ``Attributes:`` section, plus its default) and ``LEAKRES_<COMMAND>_<OPTION>``
variable (click's ``auto_envvar_prefix``) come from the dataclass. :data:`EXTRA` holds only what cannot
be derived: ranges, choices, a flag name other than the field's.

Every option defaults to None, so what the user did not give comes from the preset
(:func:`~leakres_cli.config.run_config.preset_config`); :func:`config_values` turns the parsed values back into
RunConfig keyword arguments.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import click

from leakres_cli.config.run_config import PROMPT_FORMS, REPORT_TO, RunConfig
from leakres_cli.models.engines import DTYPES, ENGINES, PROMPT_MODES


@dataclass(frozen=True)
class Extra:
    """What a field's annotation and docstring do not say about its option."""

    flag: str | None = None  # the option's name when it is not the field's (``--input``)
    type: click.ParamType | None = None  # a range or a choice
    default_help: str | None = None  # the bracketed default, when the field's value is not it


# Upper bounds of the numeric options, checked at parse time (before any work): far above any
# real run, low enough that no value can exhaust memory or overflow later (`--bootstrap 1e10`
# once asked numpy for 298 GiB after the whole model work).
MAX_FACTS = 100_000
MAX_QUESTIONS = 1_000_000
MAX_BOOTSTRAP = 100_000


class SeedList(click.ParamType):
    """``--seeds 0,1,2``: distinct integers in numpy's seed range, given back as the comma list
    (``config_values`` splits it; ``RunConfig`` makes them integers)."""

    name = "seeds"

    def convert(self, value: Any, param: Any, ctx: Any) -> str:
        parts = [p.strip() for p in str(value).split(",") if p.strip()]
        if not parts or not all(p.isdigit() and int(p) < 2**32 for p in parts):
            self.fail(f"'{value}' is not a comma list of seeds (integers 0 to 2^32-1)", param, ctx)
        if len(set(map(int, parts))) != len(parts):
            self.fail(f"'{value}' lists a seed twice", param, ctx)
        return ",".join(str(int(p)) for p in parts)


EXTRA: dict[str, Extra] = {
    "source_path": Extra(flag="--input"),
    "types": Extra(default_help="preset default: SH,HS; 'all': every type kg-qgen registers"),
    "n_forget": Extra(type=click.IntRange(1, MAX_FACTS)),
    "n_retain": Extra(type=click.IntRange(0, MAX_FACTS)),
    "per_type": Extra(type=click.IntRange(1, MAX_QUESTIONS)),
    "sh_pool": Extra(type=click.IntRange(1, MAX_QUESTIONS)),
    "judge_timeout": Extra(type=click.FloatRange(0, 3600, min_open=True)),
    "judge_retries": Extra(type=click.IntRange(0, 10)),
    "seed": Extra(type=click.IntRange(0, 2**32 - 1)),  # numpy seeds must fit in 32 bits
    "seeds": Extra(type=SeedList(), default_help="default: --seed alone"),
    "batch_size": Extra(type=click.IntRange(1, 65536)),
    "max_new_tokens": Extra(type=click.IntRange(1, 32768)),
    "prompt_form": Extra(type=click.Choice(PROMPT_FORMS)),
    "bootstrap": Extra(type=click.IntRange(1, MAX_BOOTSTRAP)),
    "attack_budgets": Extra(default_help="default: none"),
    "bbh_tasks": Extra(default_help="preset default: off"),
    "bbh_limit": Extra(type=click.IntRange(0, MAX_QUESTIONS)),
    "data_dir": Extra(default_help="default: $LEAKRES_DATA_DIR"),
    "dtype": Extra(type=click.Choice(DTYPES), default_help="preset default: float32; paper: auto"),
    "engine": Extra(type=click.Choice(ENGINES)),
    "engine_prompts": Extra(type=click.Choice(PROMPT_MODES)),
    "report_to": Extra(type=click.Choice(REPORT_TO), default_help="default: none"),
    "base": Extra(type=click.Choice(("pretrained", "tuned", "taught"))),
    "teach_examples": Extra(type=click.IntRange(0, MAX_QUESTIONS)),
    "teach_statements": Extra(type=click.IntRange(0, 100)),
    "teach_epochs": Extra(type=click.FloatRange(0, 1000, min_open=True)),
    "teach_lr": Extra(type=click.FloatRange(0, 1, min_open=True)),
    "teach_batch": Extra(type=click.IntRange(1, 1024)),
    "eval_every": Extra(type=click.IntRange(0, MAX_QUESTIONS), default_help="default: 0, off"),
    "controls": Extra(default_help="default: on"),
}

#: RunConfig fields that are options of `leakres run`, in --help order
RUN_FIELDS = (
    "model",
    "source",
    "source_path",
    "types",
    "methods",
    "attacks",
    "attack_budgets",
    "n_forget",
    "n_retain",
    "per_type",
    "sh_pool",
    "judge",
    "judge_model",
    "judge_base_url",
    "judge_timeout",
    "judge_retries",
    "seed",
    "seeds",
    "batch_size",
    "max_new_tokens",
    "prompt_form",
    "bootstrap",
    "bbh_tasks",
    "bbh_limit",
    "bbh_cot",
    "data_dir",
    "allow_fewer",
    "save_models",
    "report_to",
    "engine",
    "engine_cmd",
    "engine_prompts",
    "dtype",
    "base",
    "teach_source",
    "teach_examples",
    "teach_statements",
    "teach_epochs",
    "teach_lr",
    "teach_batch",
    "eval_every",
    "controls",
)


def attribute_docs(cls: type) -> dict[str, str]:
    """Each ``name: text`` entry of a class docstring's ``Attributes:`` section, joined to one line
    and with reST markup (````x````, ``:mod:`x```) reduced to plain text."""
    doc = inspect.getdoc(cls) or ""
    _, found, section = doc.partition("Attributes:\n")
    if not found:
        raise ValueError(f"{cls.__name__}'s docstring has no 'Attributes:' section")
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in section.splitlines():
        entry = re.match(r"^ {4}(\w+): (.*)$", line)
        if entry:
            current = entries.setdefault(entry.group(1), [entry.group(2)])
        elif line.startswith(" " * 8) and current is not None:
            current.append(line.strip())
        elif line.strip():  # the section ends at the first line that is neither
            break
    return {name: _plain(" ".join(parts)) for name, parts in entries.items()}


def _plain(text: str) -> str:
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def _field_kind(field: dataclasses.Field) -> type:
    """int, float, str, bool or tuple: the field's annotation without ``| None``."""
    hint = typing.get_type_hints(RunConfig)[field.name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        hint = args[0]
    origin = typing.get_origin(hint) or hint
    if origin not in (int, float, str, bool, tuple):
        raise TypeError(f"RunConfig.{field.name}: no option type for {hint!r}")
    return origin


def _default_help(field: dataclasses.Field, kind: type, extra: Extra) -> str:
    if extra.default_help is not None:
        return f" [{extra.default_help}]"
    value = field.default
    if value is None or value == ():
        return ""
    if kind is bool:
        return f" [preset default: {'on' if value else 'off'}]"
    shown = ",".join(value) if kind is tuple else value
    return f" [preset default: {shown}]"


def config_option(
    name: str, *, help_text: str | None = None, envvar: list[str] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option of one RunConfig field (default None: the preset decides).

    ``help_text`` replaces the docstring's description (a command where the field means something
    narrower); ``envvar`` replaces click's automatic ``LEAKRES_<COMMAND>_<OPTION>``.
    """
    field = FIELDS[name]
    kind = _field_kind(field)
    extra = EXTRA.get(name, Extra())
    flag = extra.flag or f"--{name.replace('_', '-')}"
    if help_text is None:
        help_text = _sentence(DOCS[name])
        if kind is tuple:
            first = (
                help_text[0].lower() if help_text[1:2].islower() else help_text[0]
            )  # "BIG-Bench"
            help_text = f"Comma-separated {first}{help_text[1:]}"
    kwargs: dict[str, Any] = {
        "default": None,
        "help": help_text + _default_help(field, kind, extra),
        "envvar": envvar,
    }
    if kind is bool:
        return click.option(f"{flag}/--no-{flag[2:]}", name, **kwargs)
    return click.option(
        flag, name, type=extra.type or {int: click.INT, float: click.FLOAT}.get(kind), **kwargs
    )


def _sentence(text: str) -> str:
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def config_options(
    names: Iterable[str],
    *,
    help_texts: Mapping[str, str] | None = None,
    envvars: Mapping[str, list[str]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command with the options of ``names``, in that order in --help."""
    decorators = [
        config_option(n, help_text=(help_texts or {}).get(n), envvar=(envvars or {}).get(n))
        for n in names
    ]

    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for decorate in reversed(decorators):  # click lists the outermost decorator first
            command = decorate(command)
        return command

    return apply


def config_values(params: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """RunConfig keyword arguments of the parsed options ``names`` (comma lists split; None kept,
    so that :func:`~leakres_cli.config.run_config.preset_config` keeps the preset's value)."""
    values = {}
    for name in names:
        value = params.get(name)
        if value is not None and _field_kind(FIELDS[name]) is tuple:
            value = split_list(value)
        values[name] = value
    return values


def split_list(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}
DOCS = attribute_docs(RunConfig)
_missing = [f for f in FIELDS if f not in DOCS]
if _missing:  # a new RunConfig field must be documented: its docstring entry is its help text
    raise RuntimeError(f"RunConfig docstring lacks 'Attributes:' entries for {_missing}")
