import math

import pytest
from kg_qgen.stats import answer_entropy, dataset_stats, self_bleu, sentence_bleu


def test_sentence_bleu_hand_computed():
    # hyp "a b c d" vs ref "a b c e": p1 = 3/4, p2 = (2+1)/(3+1), p3 = (1+1)/(2+1),
    # p4 = (0+1)/(1+1), equal lengths -> BP = 1
    expected = (3 / 4 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25
    assert sentence_bleu("a b c d", ["a b c e"]) == pytest.approx(expected)
    assert sentence_bleu("a b c d", ["a b c d"]) == pytest.approx(1.0)
    assert sentence_bleu("x y", ["a b c"]) == 0.0


def test_brevity_penalty():
    # hyp of 2 tokens, closest ref 4 tokens -> BP = exp(1 - 4/2)
    p = 1.0 * (1 + 1) / (1 + 1) * 1 / 1 * 1 / 1  # p1 = 1, p2 = (1+1)/(1+1), p3, p4 = 1/1
    assert sentence_bleu("a b", ["a b c d"]) == pytest.approx(math.exp(1 - 2) * p**0.25)


def test_self_bleu_matches_naive_definition():
    texts = ["a b c d", "a b c e", "the cat sat on the mat", "a cat sat", "b c d e f"]
    naive = sum(sentence_bleu(t, texts[:i] + texts[i + 1 :]) for i, t in enumerate(texts)) / 5
    assert self_bleu(texts) == pytest.approx(naive)
    assert self_bleu(["a b c d", "a b c e"]) == pytest.approx((3 / 4 * 3 / 4 * 2 / 3 / 2) ** 0.25)
    assert self_bleu(["only one"]) is None


def test_answer_entropy_hand_computed():
    assert answer_entropy(["x", "X", "y", "z"]) == pytest.approx(1.5)
    assert answer_entropy(["a"] * 5) == 0.0
    assert answer_entropy([]) is None


def test_dataset_stats_per_type():
    qs = [
        {"type": "SH", "question": "a b c d", "answer": "x"},
        {"type": "SH", "question": "a b c e", "answer": "y"},
        {"type": "HS", "question": "q", "answer": "x"},
    ]
    s = dataset_stats(qs)
    assert s["per_type"]["SH"]["answer_entropy_bits"] == pytest.approx(1.0)
    assert s["per_type"]["HS"]["self_bleu"] is None
    assert s["all"]["n"] == 3
