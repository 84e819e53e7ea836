"""One registry shape in all four libraries (issue 12): the same cases through every registry.

Each library keeps its own copy of ``plugins.py`` (they never import each other;
``tests/test_shared_copies.py`` keeps the copies byte-identical); this test keeps the registries
built on them in step. Plugins are fake entry points
(``importlib.metadata.EntryPoint`` objects pointing at real classes of the packages) returned by a
patched ``<package>.plugins.entry_points``; nothing is installed.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import kg_qgen
import leak_metrics
import pytest
import recover_attacks
import unlearn_zoo
from kg_qgen.generate.registry import available_generators, get_generator
from kg_qgen.llm.backend import available_backends, get_backend
from kg_qgen.sources.registry import available_sources, get_source
from leak_metrics.judges import JUDGES, available_judges, get_judge
from recover_attacks.registry import available_attacks, get_attack, get_attack_class
from unlearn_zoo.registry import available_unlearners, get_unlearner, get_unlearner_class

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Family:
    """One registry and the names the cases use."""

    id: str
    package: str  # import name of the library
    family: str  # the word in error messages
    group: str  # entry point group
    available: Callable[[], list[str]]
    lookup: Callable[[str], Any]  # name -> registered object (class or factory), not built
    builtin: str
    near_miss: str  # a typo whose only close match is ``builtin``
    other: str  # "module:attr" of a different real implementation, used as the plugin

    @property
    def plugins(self) -> Any:
        return importlib.import_module(f"{self.package}.plugins")

    @property
    def errors(self) -> Any:
        return importlib.import_module(f"{self.package}.errors")


FAMILIES = [
    Family(
        "sources",
        "kg_qgen",
        "source",
        "leakres.kg_sources",
        available_sources,
        get_source,
        "triples",
        "tripels",
        "kg_qgen.sources.builtin:load_builtin",
    ),
    Family(
        "generators",
        "kg_qgen",
        "generator",
        "leakres.kg_generators",
        available_generators,
        lambda name: kg_qgen.generate.registry.GENERATORS.get(name),
        "template",
        "templat",
        "kg_qgen.llm_factory:make_llm_generator",
    ),
    Family(
        "llm_backends",
        "kg_qgen",
        "LLM backend",
        "leakres.llm_backends",
        available_backends,
        get_backend,
        "openai",
        "opnai",
        "kg_qgen.llm.cache:CachedBackend",
    ),
    Family(
        "unlearners",
        "unlearn_zoo",
        "unlearner",
        "leakres.unlearners",
        available_unlearners,
        get_unlearner_class,
        "simnpo",
        "simnop",
        "unlearn_zoo.methods.ga:GAUnlearner",
    ),
    Family(
        "attacks",
        "recover_attacks",
        "attack",
        "leakres.attacks",
        available_attacks,
        get_attack_class,
        "probab",
        "probabb",
        "recover_attacks.attacks.in_context:InContextAttack",
    ),
    Family(
        "judges",
        "leak_metrics",
        "judge",
        "leakres.judges",
        available_judges,
        JUDGES.get,
        "alias",
        "alais",
        "leak_metrics.judges.llm:LLMJudge",
    ),
]
BASE_ERRORS = {
    "kg_qgen": kg_qgen.KgQgenError,
    "unlearn_zoo": unlearn_zoo.UnlearnError,
    "recover_attacks": recover_attacks.RecoverAttacksError,
    "leak_metrics": leak_metrics.LeakMetricsError,
}
ids = [f.id for f in FAMILIES]


def _load(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def _fake_plugins(monkeypatch: pytest.MonkeyPatch, fam: Family, *names: str) -> None:
    """Entry points ``names`` of ``fam.group``, each pointing at ``fam.other``."""
    eps = [EntryPoint(name=n, value=fam.other, group=fam.group) for n in names]
    monkeypatch.setattr(
        fam.plugins, "entry_points", lambda group: eps if group == fam.group else []
    )


@pytest.mark.parametrize("fam", FAMILIES, ids=ids)
def test_unknown_name_with_a_near_miss(fam: Family) -> None:
    with pytest.raises(KeyError) as caught:
        fam.lookup(fam.near_miss)
    err = caught.value
    assert type(err) is fam.errors.UnknownNameError
    assert isinstance(err, BASE_ERRORS[fam.package])
    known = ", ".join(fam.available())
    expected = (
        f"unknown {fam.family} '{fam.near_miss}'; did you mean '{fam.builtin}'? Known: {known}"
    )
    assert str(err) == expected  # the message itself, not KeyError's quoted repr
    with pytest.raises(KeyError) as far:
        fam.lookup("qqqqqqqq")
    assert str(far.value) == f"unknown {fam.family} 'qqqqqqqq'; Known: {known}"


@pytest.mark.parametrize("fam", FAMILIES, ids=ids)
def test_names_are_case_insensitive(fam: Family) -> None:
    obj = fam.lookup(fam.builtin)
    assert fam.lookup(fam.builtin.upper()) is obj
    assert fam.lookup(f"  {fam.builtin.title()} ") is obj
    assert all(name == name.lower() for name in fam.available())


@pytest.mark.parametrize("fam", FAMILIES, ids=ids)
def test_builtins_before_plugins(monkeypatch: pytest.MonkeyPatch, fam: Family) -> None:
    builtins = fam.available()
    # A plugin that reuses a built-in's name (in another case) and a new one.
    _fake_plugins(monkeypatch, fam, fam.builtin.upper(), "Zz_Plugin")
    assert fam.available() == [*builtins, "zz_plugin"]
    assert fam.lookup(fam.builtin) is not _load(fam.other)  # the built-in wins
    assert fam.lookup(fam.builtin) is fam.lookup(fam.builtin.upper())
    assert fam.lookup("ZZ_PLUGIN") is _load(fam.other)
    assert "zz_plugin" in fam.available()


@pytest.mark.parametrize("package", sorted(BASE_ERRORS))
def test_one_unknown_name_error_per_package(package: str) -> None:
    mod = importlib.import_module(package)
    err_cls = mod.UnknownNameError
    assert err_cls is importlib.import_module(f"{package}.errors").UnknownNameError
    assert issubclass(err_cls, KeyError) and issubclass(err_cls, BASE_ERRORS[package])
    assert str(err_cls("unknown thing 'x'")) == "unknown thing 'x'"


def test_get_takes_overrides_and_every_implementation_has_config_cls() -> None:
    assert get_attack("PROBAB", seed=3).config.seed == 3
    assert get_unlearner("GA", lr=2e-5).config.lr == 2e-5
    assert get_judge("Alias", yes_no_rule=False).config.yes_no_rule is False
    assert get_generator("Template", seed=5).seed == 5
    graph, bound = get_source("builtin")(), get_source("builtin", path=None)()
    assert repr(bound) == repr(graph)  # same entity, relation and fact counts
    for name in available_attacks():
        cls = get_attack_class(name)
        assert dataclasses.is_dataclass(cls.config_cls), name
    for name in available_unlearners():
        cls = get_unlearner_class(name)
        assert dataclasses.is_dataclass(cls.config_cls), name
        assert cls.config_class is cls.config_cls  # the deprecated name still answers
    for judge_cls in (leak_metrics.AliasJudge, leak_metrics.LLMJudge):
        assert dataclasses.is_dataclass(judge_cls.config_cls), judge_cls
    for cls in (kg_qgen.generate.template.TemplateGenerator, kg_qgen.llm.LLMQuestionGenerator):
        assert dataclasses.is_dataclass(cls.config_cls)


def test_describe_is_the_run_metadata_everywhere() -> None:
    attack = get_attack("focus_on_key", top_k=2)
    assert attack.describe()["top_k"] == 2 and attack.describe() == attack.settings()
    unlearner = get_unlearner("npo", beta=0.2)
    meta = unlearner.describe()
    assert (meta["method"], meta["config"]["beta"]) == ("npo", 0.2) and meta["variant"]
    assert get_judge("alias").describe()["name"] == "alias"
    template = get_generator("template", seed=4)
    assert template.describe() == {"generator": "template", "seed": 4} == template.settings()


def test_deprecated_names_still_work() -> None:
    assert recover_attacks.list_attacks() == available_attacks()
    assert unlearn_zoo.list_unlearners() == available_unlearners()
    assert recover_attacks.UnknownAttackError is recover_attacks.UnknownNameError
    with pytest.raises(unlearn_zoo.UnlearnError, match="did you mean 'npo'"):
        unlearn_zoo.get_unlearner("npoo")

    @dataclasses.dataclass
    class OldStyleConfig(unlearn_zoo.UnlearnConfig):
        note: str = "old"

    class OldStyle(unlearn_zoo.Unlearner):  # written against config_class only
        name = "old_style"
        config_class = OldStyleConfig

    assert OldStyle.config_cls is OldStyleConfig
    assert OldStyle(note="kept").config.note == "kept"
