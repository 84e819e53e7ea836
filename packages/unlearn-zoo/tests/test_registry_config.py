"""Registry, config overrides, per-size defaults."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from unlearn_zoo import UnlearnError, default_overrides, get_unlearner, list_unlearners, size_tier
from unlearn_zoo.methods.npo import NPOConfig

ALL = ["ga", "graddiff", "npo", "simnpo", "rmu", "tv", "palu", "as"]


def test_all_methods_registered() -> None:
    assert list_unlearners()[:8] == ALL
    for name in ALL:
        u = get_unlearner(name)
        assert u.name == name
        assert isinstance(asdict(u.config), dict)


def test_unknown_method_suggests_and_lists() -> None:
    with pytest.raises(UnlearnError) as err:
        get_unlearner("npp")
    msg = str(err.value)
    assert "unknown unlearner 'npp'" in msg and "did you mean 'npo'" in msg
    assert all(name in msg for name in ALL)


def test_overrides_set_typed_fields() -> None:
    u = get_unlearner("npo", beta=0.2, lr=1, lora_target_modules=["q_proj"])
    assert isinstance(u.config, NPOConfig)
    assert u.config.beta == 0.2 and u.config.lr == 1.0 and isinstance(u.config.lr, float)
    assert u.config.lora_target_modules == ("q_proj",)
    assert get_unlearner("npo").config.beta == 0.1


def test_unknown_field_is_a_clear_error() -> None:
    with pytest.raises(UnlearnError, match=r"unknown config field 'bta'.*did you mean 'beta'"):
        get_unlearner("npo", bta=0.2)
    with pytest.raises(UnlearnError, match="expects float"):
        get_unlearner("ga", lr="fast")
    with pytest.raises(UnlearnError, match="lr"):
        get_unlearner("ga", lr=-1.0)
    with pytest.raises(UnlearnError, match="no retain term"):
        get_unlearner("tv", retain_weight=1.0)


def test_default_overrides_tiers_are_valid_configs() -> None:
    assert size_tier(135_000_000) == "small"
    assert size_tier(7_000_000_000) == "medium"
    assert size_tier(70_000_000_000) == "large"
    for name in ALL:
        for n in (135_000_000, 7_000_000_000, 70_000_000_000):
            over = default_overrides(name, n)
            get_unlearner(name, **over)  # must be accepted by the config
    assert default_overrides("ga", 70_000_000_000)["use_lora"] is True
    assert "use_lora" not in default_overrides("as", 70_000_000_000)
    with pytest.raises(UnlearnError, match="Known"):
        default_overrides("nope", 1)


def test_entry_point_plugin_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    import unlearn_zoo.plugins as plugins
    import unlearn_zoo.registry as reg

    ep = EntryPoint(
        name="my_ga", value="unlearn_zoo.methods.ga:GAUnlearner", group=reg.ENTRY_POINT_GROUP
    )
    # discovery lives in the registry helper (unlearn_zoo.plugins) since issue 12
    monkeypatch.setattr(
        plugins, "entry_points", lambda group: [ep] if group == reg.ENTRY_POINT_GROUP else []
    )
    assert "my_ga" in list_unlearners()
    assert get_unlearner("my_ga", lr=2e-5).config.lr == 2e-5
