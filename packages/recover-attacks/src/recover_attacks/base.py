"""The common attack interface, its inputs, its result record and the typed config base class."""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from .budget_axis import BudgetAxis
from .errors import ConfigError, MissingInputError
from .records import QuestionRecord, validate_questions

if TYPE_CHECKING:
    from .engine.base import Engine

#: the engine injected by the ``Attack.run`` in progress (None: decode in-process on the model)
_INJECTED_ENGINE: ContextVar[Engine | None] = ContextVar("recover_attacks_engine", default=None)


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


@dataclasses.dataclass(frozen=True)
class AttackInputs:
    """What an attack may need besides the attacked model and the questions.

    Each attack names the fields it uses in ``Attack.requires``; the others are ignored, so a
    caller may pass one ``AttackInputs`` to every attack.
    """

    original_model: Any = None
    """theta_p, the model before unlearning (in memory, or a local path / hub id)."""
    relearn_data: Sequence[Any] | None = None
    """(question, answer) pairs or records to fine-tune on; none may be a forgotten fact."""
    context_facts: Sequence[Any] | Mapping[str, Sequence[Any]] | None = None
    """(question, answer) pairs for every question, or a mapping question id -> its pairs."""


INPUT_HELP: dict[str, str] = {
    "original_model": "the pre-unlearning model (theta_p)",
    "relearn_data": "retain or related (question, answer) facts that exclude the forgotten ones",
    "context_facts": "(question, answer) pairs of related facts",
}

ConfigT = TypeVar("ConfigT", bound=AttackConfig)


def merge_inputs(inputs: AttackInputs | None, **legacy: Any) -> AttackInputs:
    """``inputs`` with the older keyword arguments (``original_model=`` ...) folded in; a field
    given both ways is an error rather than a silent choice."""
    given = {name: value for name, value in legacy.items() if value is not None}
    if inputs is None:
        return AttackInputs(**given)
    twice = [name for name in given if getattr(inputs, name) is not None]
    if twice:
        raise ConfigError(f"{', '.join(twice)} given both in inputs= and as a keyword argument")
    return dataclasses.replace(inputs, **given)


class Attack(ABC, Generic[ConfigT]):
    """A recovery attack: given an unlearned model and questions, return raw responses.

    Subclasses derive from ``Attack[TheirConfig]`` (so ``self.config`` is typed), set ``name``,
    ``config_cls``, ``required_fields`` (record fields), ``requires`` (the
    :class:`AttackInputs` fields they use) and ``changes_weights``, and implement ``_run``, which receives exactly the
    inputs named in ``requires`` as keyword arguments, plus ``progress``. ``run`` validates the
    records, checks the required inputs, accepts a model path or an in-memory model, and returns
    one :class:`AttackResult` per question in the input order.

    Decoding goes through an engine (ARCHITECTURE.md, the engine section): ``run(...,
    engine=...)`` injects one that serves the attacked model (e.g. an
    :class:`~recover_attacks.engine.OpenAIEngine` in front of a server), and an attack decodes
    with ``generate(model, tokenizer, ..., engine=self.engine)``; with none injected
    ``self.engine`` is None and ``generate`` decodes in-process
    (:class:`~recover_attacks.engine.LocalEngine`). An attack that ``changes_weights`` decodes
    its new weights in-process and takes no engine.
    """

    name: ClassVar[str]
    config_cls: ClassVar[type[AttackConfig]]
    required_fields: ClassVar[tuple[str, ...]] = ("id", "question")
    requires: ClassVar[tuple[str, ...]] = ()
    changes_weights: ClassVar[bool] = False
    """The attack changes the attacked model's weights (re-quantizes, fine-tunes a copy): it needs
    them in memory, and no served endpoint can run it. The others only read the model."""
    needs_endpoint: ClassVar[bool] = False
    """The attack itself asks a remote service (none of the built-ins does)."""
    budget: ClassVar[BudgetAxis | None] = None
    """The axis the attack spends effort along, with its default ladder (:mod:`.budgets`);
    None: the attack runs at one setting."""
    config: ConfigT

    def __init__(self, config: ConfigT | None = None) -> None:
        chosen = config if config is not None else self.config_cls()
        if not isinstance(chosen, self.config_cls):
            raise ConfigError(
                f"attack {self.name!r} needs a {self.config_cls.__name__}, "
                f"got {type(chosen).__name__}"
            )
        self.config = cast(ConfigT, chosen)  # checked just above against config_cls

    def describe(self, **extra: Any) -> dict[str, Any]:
        """Run metadata: the config plus run-time facts, recorded in every result."""
        return {**dataclasses.asdict(self.config), **extra}

    def settings(self, **extra: Any) -> dict[str, Any]:
        """Deprecated alias of :meth:`describe`."""
        return self.describe(**extra)

    def run(
        self,
        model: Any,
        tokenizer: Any,
        questions: Sequence[QuestionRecord],
        inputs: AttackInputs | None = None,
        *,
        progress: bool = True,
        original_model: Any = None,
        relearn_data: Sequence[Any] | None = None,
        context_facts: Sequence[Any] | Mapping[str, Sequence[Any]] | None = None,
        engine: Engine | None = None,
    ) -> list[AttackResult]:
        """Attack ``questions`` (normally S_suc; passing all items is the caller's choice).

        ``model`` is an in-memory causal LM or a local path / hub id (then ``tokenizer`` may be
        None and is loaded from the same place). ``inputs`` carries what the attack
        ``requires``; the keywords ``original_model``, ``relearn_data`` and ``context_facts``
        are the older way to give the same fields and are merged into ``inputs``. ``engine``:
        the engine that decodes the attacked model (see the class docstring); every result's
        settings then record it as ``engine``.
        """
        if engine is not None and self.changes_weights:
            raise ConfigError(
                f"attack {self.name!r} changes the model's weights and decodes them in-process; "
                "it takes no engine"
            )
        from .loading import resolve_model

        inputs = merge_inputs(
            inputs,
            original_model=original_model,
            relearn_data=relearn_data,
            context_facts=context_facts,
        )
        validate_questions(questions, self.required_fields)
        model, tokenizer = resolve_model(model, tokenizer)
        if not questions:
            return []
        self.check_inputs(inputs)
        given = {name: getattr(inputs, name) for name in self.requires}
        theta_p = given.get("original_model")
        if theta_p is not None and not hasattr(theta_p, "forward"):
            given["original_model"], _ = resolve_model(theta_p, tokenizer)
        token = _INJECTED_ENGINE.set(engine)
        try:
            return self._run(model, tokenizer, list(questions), progress=progress, **given)
        finally:
            _INJECTED_ENGINE.reset(token)

    @property
    def engine(self) -> Engine | None:
        """The engine injected into the ``run`` in progress (None: decode in-process)."""
        return _INJECTED_ENGINE.get()

    def check_inputs(self, inputs: AttackInputs) -> None:
        """Raise :class:`MissingInputError` naming the first required input that is None."""
        for name in self.requires:
            if name not in INPUT_HELP:
                raise ConfigError(
                    f"attack {self.name!r} requires unknown input {name!r}; "
                    f"AttackInputs has {', '.join(INPUT_HELP)}"
                )
            if getattr(inputs, name) is None:
                raise MissingInputError(
                    f"attack {self.name!r} needs {name}: {INPUT_HELP[name]} "
                    f"(pass inputs=AttackInputs({name}=...))"
                )

    @abstractmethod
    def _run(self, *args: Any, **kwargs: Any) -> list[AttackResult]:
        """``_run(model, tokenizer, questions, *, progress, <each name in requires>)``."""

    def _results(
        self, questions: Sequence[QuestionRecord], responses: Sequence[list[str]], **extra: Any
    ) -> list[AttackResult]:
        if self.engine is not None:
            extra = {"engine": self.engine.describe(), **extra}
        settings = self.describe(**extra)
        return [
            AttackResult(
                id=str(q["id"]), attack=self.name, responses=list(r), settings=dict(settings)
            )
            for q, r in zip(questions, responses, strict=True)
        ]
