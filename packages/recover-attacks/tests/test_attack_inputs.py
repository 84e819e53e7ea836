"""The attack interface of issue 12: one ``AttackInputs``, each attack's ``requires``, the base
class's check, the typed config and the older keyword arguments (tiny real model and tokenizer)."""

import dataclasses

import pytest
from recover_attacks import (
    Attack,
    AttackConfig,
    AttackInputs,
    ConfigError,
    MissingInputError,
    RecordError,
    available_attacks,
    get_attack,
    get_attack_class,
)

FACTS = [("what is the capital of germany ?", "berlin")]

REQUIRES = {
    "probab": (),
    "quantization": (),
    "focus_on_key": ("original_model",),
    "relearn": ("relearn_data",),
    "in_context": ("context_facts",),
}


def test_every_builtin_declares_what_it_requires():
    assert {name: get_attack_class(name).requires for name in REQUIRES} == REQUIRES
    fields = {f.name for f in dataclasses.fields(AttackInputs)}
    for name in available_attacks():
        assert set(get_attack_class(name).requires) <= fields, name


@pytest.mark.parametrize("name", ["focus_on_key", "relearn", "in_context"])
def test_missing_required_input_is_named(name, model, tokenizer, questions):
    [needed] = REQUIRES[name]
    attack = get_attack(name)
    # the other two inputs are given: only the required one counts
    others = {f: FACTS for f in ("relearn_data", "context_facts") if f != needed}
    with pytest.raises(MissingInputError, match=rf"attack '{name}' needs {needed}: ") as caught:
        attack.run(model, tokenizer, questions, AttackInputs(**others), progress=False)
    assert isinstance(caught.value, RecordError)  # what callers caught before issue 12


def test_inputs_object_and_keywords_give_the_same_responses(model, tokenizer, questions):
    attack = get_attack("in_context", max_new_tokens=3)
    new = attack.run(model, tokenizer, questions, AttackInputs(context_facts=FACTS), progress=False)
    old = attack.run(model, tokenizer, questions, context_facts=FACTS, progress=False)
    assert [r.to_dict() for r in new] == [r.to_dict() for r in old]
    assert new[0].settings["max_new_tokens"] == 3


def test_an_input_given_both_ways_is_refused(model, tokenizer, questions):
    with pytest.raises(ConfigError, match="context_facts given both in inputs= and as a keyword"):
        get_attack("in_context").run(
            model,
            tokenizer,
            questions,
            AttackInputs(context_facts=FACTS),
            context_facts=FACTS,
            progress=False,
        )


def test_unrequired_inputs_are_ignored(model, tokenizer, questions):
    inputs = AttackInputs(original_model=object(), relearn_data=FACTS, context_facts=FACTS)
    out = get_attack("probab", num_samples=2, max_new_tokens=2).run(
        model, tokenizer, questions[:1], inputs, progress=False
    )
    assert len(out[0].responses) == 2


def test_run_passes_only_the_required_inputs(model, tokenizer, questions):
    seen: list[dict] = []

    @dataclasses.dataclass
    class SpyConfig(AttackConfig):
        tag: str = "t"

    class Spy(Attack[SpyConfig]):
        name = "spy"
        config_cls = SpyConfig
        requires = ("relearn_data",)

        def _run(self, model, tokenizer, questions, *, relearn_data, progress):
            seen.append({"relearn_data": relearn_data, "progress": progress})
            return self._results(questions, [[self.config.tag] for _ in questions])

    inputs = AttackInputs(relearn_data=FACTS, context_facts=FACTS)
    out = Spy(SpyConfig(tag="x")).run(model, tokenizer, questions, inputs, progress=False)
    assert seen == [{"relearn_data": FACTS, "progress": False}]
    assert out[0].responses == ["x"] and out[0].settings == {"tag": "x"}
    assert Spy().describe(extra=1) == {"tag": "t", "extra": 1} == Spy().settings(extra=1)


def test_empty_questions_need_no_inputs(model, tokenizer):
    assert get_attack("relearn").run(model, tokenizer, [], progress=False) == []
