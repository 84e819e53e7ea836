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


def test_plugin_attack_from_entry_point(monkeypatch, model, tokenizer, questions):
    import dataclasses
    from importlib.metadata import EntryPoint

    import recover_attacks.registry as registry
    from recover_attacks import Attack, AttackConfig

    @dataclasses.dataclass
    class EchoConfig(AttackConfig):
        suffix: str = "!"

    class EchoAttack(Attack):
        name = "echo"
        config_cls = EchoConfig

        def _run(self, model, tokenizer, questions, **_):
            return self._results(
                questions, [[q["question"] + self.config.suffix] for q in questions]
            )

    monkeypatch.setitem(globals(), "EchoAttack", EchoAttack)
    ep = EntryPoint(name="echo", value=f"{__name__}:EchoAttack", group=registry.ENTRY_POINT_GROUP)
    import recover_attacks.plugins as plugins  # entry point discovery lives here since issue 12

    monkeypatch.setattr(plugins, "entry_points", lambda group: [ep] if group == ep.group else [])
    assert "echo" in list_attacks()
    out = get_attack("echo", suffix="?!").run(model, tokenizer, questions[:1])
    assert out[0].responses == [questions[0]["question"] + "?!"]
    assert out[0].settings == {"suffix": "?!"}


def test_attacks_say_what_they_need() -> None:
    """Issue 23: an attack's needs are class attributes a planner reads without building it:
    ``requires`` (its inputs), ``changes_weights`` (it re-quantizes or fine-tunes the weights, so
    it needs them in memory) and ``needs_endpoint`` (none of the built-ins asks a service)."""
    from recover_attacks import available_attacks, get_attack_class

    table = {name: get_attack_class(name) for name in available_attacks()}
    assert {n for n, c in table.items() if c.changes_weights} == {"quantization", "relearn"}
    assert not any(c.needs_endpoint for c in table.values())
    assert table["focus_on_key"].requires == ("original_model",)
    assert table["probab"].requires == ()
