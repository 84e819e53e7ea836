"""The common attack interface, its result record and the typed config base class."""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .errors import ConfigError
from .records import QuestionRecord, validate_questions


@dataclasses.dataclass
class AttackResult:
    """One attacked question: the raw responses (never judged) and the exact settings used."""

    id: str
    attack: str
    responses: list[str]
    settings: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The JSON record of ARCHITECTURE.md section 4."""
        return dataclasses.asdict(self)


def _accepts(tp: Any, value: Any) -> bool:
    """Small runtime check for the field types configs use (int/float/str/bool/None/Literal/list)."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return True
    if origin is typing.Literal:
        return value in typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(a, value) for a in typing.get_args(tp))
    if tp is type(None):
        return value is None
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple, Sequence):
        return isinstance(value, (list, tuple))
    if isinstance(tp, type):
        return isinstance(value, tp)
    return True


@dataclasses.dataclass
class AttackConfig:
    """Base of every attack config: typed fields, checked on construction."""

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not _accepts(hints[f.name], value):
                raise ConfigError(
                    f"{type(self).__name__}.{f.name} must be {hints[f.name]}, got {value!r}"
                )
        self.validate()

    def validate(self) -> None:
        """Range checks of subclasses (raise ConfigError)."""

    @classmethod
    def from_overrides(cls, **overrides: Any) -> AttackConfig:
        names = [f.name for f in dataclasses.fields(cls)]
        for key in overrides:
            if key not in names:
                close = difflib.get_close_matches(key, names, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise ConfigError(
                    f"unknown field {key!r} for {cls.__name__}{hint} Known: {', '.join(names)}"
                )
        return cls(**overrides)


class Attack(ABC):
    """A recovery attack: given an unlearned model and questions, return raw responses.

    Subclasses set ``name``, ``config_cls`` and ``required_fields`` and implement ``_run``.
    ``run`` validates the records, accepts a model path or an in-memory model, and returns one
    :class:`AttackResult` per question in the input order.
    """

    name: ClassVar[str]
    config_cls: ClassVar[type[AttackConfig]]
    required_fields: ClassVar[tuple[str, ...]] = ("id", "question")

    def __init__(self, config: AttackConfig | None = None) -> None:
        self.config = config if config is not None else self.config_cls()
        if not isinstance(self.config, self.config_cls):
            raise ConfigError(
                f"attack {self.name!r} needs a {self.config_cls.__name__}, "
                f"got {type(self.config).__name__}"
            )

    def settings(self, **extra: Any) -> dict[str, Any]:
        """Config plus run-time facts, recorded in every result."""
        return {**dataclasses.asdict(self.config), **extra}

    def run(
        self,
        model: Any,
        tokenizer: Any,
        questions: Sequence[QuestionRecord],
        *,
        original_model: Any = None,
        relearn_data: Sequence[Any] | None = None,
        context_facts: Sequence[Any] | Mapping[str, Sequence[Any]] | None = None,
        progress: bool = True,
    ) -> list[AttackResult]:
        """Attack ``questions`` (normally S_suc; passing all items is the caller's choice).

        ``model`` is an in-memory causal LM or a local path / hub id (then ``tokenizer`` may be
        None and is loaded from the same place). ``original_model`` (theta_p) is needed by
        ``focus_on_key``, ``relearn_data`` by ``relearn``, ``context_facts`` by ``in_context``.
        """
        from .loading import resolve_model

        validate_questions(questions, self.required_fields)
        model, tokenizer = resolve_model(model, tokenizer)
        if original_model is not None and not hasattr(original_model, "forward"):
            original_model, _ = resolve_model(original_model, tokenizer)
        if not questions:
            return []
        return self._run(
            model,
            tokenizer,
            list(questions),
            original_model=original_model,
            relearn_data=relearn_data,
            context_facts=context_facts,
            progress=progress,
        )

    @abstractmethod
    def _run(
        self,
        model: Any,
        tokenizer: Any,
        questions: list[QuestionRecord],
        *,
        original_model: Any,
        relearn_data: Sequence[Any] | None,
        context_facts: Sequence[Any] | Mapping[str, Sequence[Any]] | None,
        progress: bool,
    ) -> list[AttackResult]: ...

    def _results(
        self, questions: Sequence[QuestionRecord], responses: Sequence[list[str]], **extra: Any
    ) -> list[AttackResult]:
        settings = self.settings(**extra)
        return [
            AttackResult(
                id=str(q["id"]), attack=self.name, responses=list(r), settings=dict(settings)
            )
            for q, r in zip(questions, responses, strict=True)
        ]
