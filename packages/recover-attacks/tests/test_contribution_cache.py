"""FocusOnKey's contribution cache: a hit returns what a fresh computation on the current
weights returns, and any change of theta_p or the tokenizer's template is a miss."""

import copy

import pytest
import torch
from recover_attacks import get_attack
from recover_attacks.attacks.contribution_cache import ContributionCache, contribution_cache
from recover_attacks.attacks.focus_on_key import token_contributions


@pytest.fixture(autouse=True)
def _fresh_cache():
    contribution_cache.clear()
    yield
    contribution_cache.clear()


def _values(contribs):
    return [(c.index, c.text, c.contribution) for c in contribs]


def test_two_attacked_models_share_theta_p_contributions(
    model, original_model, tokenizer, questions
):
    other = copy.deepcopy(model)
    with torch.no_grad():
        next(other.parameters()).add_(0.5)  # a second "unlearned" model
    atk = get_attack("focus_on_key", max_new_tokens=3)
    first = atk.run(model, tokenizer, questions, original_model=original_model, progress=False)
    assert (contribution_cache.hits, contribution_cache.misses) == (0, len(questions))
    second = get_attack("focus_on_key", max_new_tokens=3).run(
        other, tokenizer, questions, original_model=original_model, progress=False
    )
    assert (contribution_cache.hits, contribution_cache.misses) == (len(questions), len(questions))
    for a, b in zip(first, second, strict=True):
        assert a.settings["token_contributions"] == b.settings["token_contributions"]
        assert a.settings["key_words"] == b.settings["key_words"]


def test_hit_equals_fresh_computation(original_model, tokenizer, questions):
    cache = ContributionCache()
    q = questions[0]
    cached = cache.get(original_model, tokenizer, q["question"], q["answer"], token_contributions)
    again = cache.get(original_model, tokenizer, q["question"], q["answer"], token_contributions)
    fresh = token_contributions(original_model, tokenizer, q["question"], q["answer"])
    assert cache.hits == 1 and cache.misses == 1
    assert _values(again) == _values(cached) == _values(fresh)


def test_in_place_weight_change_is_a_miss(original_model, tokenizer, questions):
    original_model = copy.deepcopy(original_model)  # the session fixture stays untouched
    cache = ContributionCache()
    q = questions[0]
    before = cache.get(original_model, tokenizer, q["question"], q["answer"], token_contributions)
    with torch.no_grad():
        for p in original_model.parameters():
            p.mul_(1.5)  # what an optimizer step or load_state_dict does: an in-place write
    after = cache.get(original_model, tokenizer, q["question"], q["answer"], token_contributions)
    assert cache.misses == 2 and cache.hits == 0
    fresh = token_contributions(original_model, tokenizer, q["question"], q["answer"])
    assert _values(after) == _values(fresh)
    assert _values(after) != _values(before)


def test_other_chat_template_or_answer_is_a_miss(original_model, tokenizer, questions):
    cache = ContributionCache()
    q = questions[0]
    cache.get(original_model, tokenizer, q["question"], q["answer"], token_contributions)
    cache.get(original_model, tokenizer, q["question"], "london", token_contributions)
    other = copy.deepcopy(tokenizer)
    other.chat_template = tokenizer.chat_template.replace("assistant", "assistant ")
    cache.get(original_model, other, q["question"], q["answer"], token_contributions)
    assert (cache.hits, cache.misses) == (0, 3)


def test_freed_model_drops_its_entries(original_model, tokenizer, questions):
    cache = ContributionCache()
    twin = copy.deepcopy(original_model)
    q = questions[0]
    cache.get(twin, tokenizer, q["question"], q["answer"], token_contributions)
    assert len(cache._entries) == 1
    del twin
    assert len(cache._entries) == 0
