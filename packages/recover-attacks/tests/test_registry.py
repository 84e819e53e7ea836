import pytest
from recover_attacks import ConfigError, UnknownAttackError, get_attack, list_attacks


def test_builtins_listed():
    assert {"probab", "focus_on_key", "quantization", "relearn", "in_context"} <= set(
        list_attacks()
    )


def test_unknown_attack_did_you_mean():
    with pytest.raises(
        UnknownAttackError, match=r"unknown attack 'probabb'; did you mean 'probab'\? Known:"
    ):
        get_attack("probabb")


def test_unknown_config_field_did_you_mean():
    with pytest.raises(
        ConfigError, match=r"unknown field 'temprature'.*did you mean 'temperature'"
    ):
        get_attack("probab", temprature=0.5)


def test_config_type_checked():
    with pytest.raises(ConfigError, match="num_samples"):
        get_attack("probab", num_samples="5")
    with pytest.raises(ConfigError, match="method"):
        get_attack("quantization", method="int3")


def test_overrides_recorded():
    attack = get_attack("focus_on_key", top_k=2, repeats=3)
    assert attack.settings()["top_k"] == 2 and attack.settings()["repeats"] == 3
