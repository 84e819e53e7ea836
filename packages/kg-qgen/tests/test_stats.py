import math
import random

import pytest
from kg_qgen.stats import (
    SELF_BLEU_DEFINITION,
    answer_entropy,
    dataset_stats,
    self_bleu,
    sentence_bleu,
    tokenize,
)
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu


def test_sentence_bleu_is_nltk_method1_hand_computed():
    # hyp "a b c d" vs ref "a b c e": p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1 -> method1 0.1/1
    expected = (3 / 4 * 2 / 3 * 1 / 2 * 0.1) ** 0.25
    assert sentence_bleu("a b c d", ["a b c e"]) == pytest.approx(expected)
    assert sentence_bleu("a b c d", ["a b c d"]) == pytest.approx(1.0)
    assert sentence_bleu("x y", ["a b c"]) == 0.0  # no unigram match


def test_brevity_penalty():
    # hyp of 2 tokens, closest ref 4 tokens -> BP = exp(1 - 4/2); p1 = p2 = 1, p3 = p4 -> 0.1
    expected = math.exp(1 - 2) * (1 * 1 * 0.1 * 0.1) ** 0.25
    assert sentence_bleu("a b", ["a b c d"]) == pytest.approx(expected)


def test_tokens_are_nltk_word_tokens_per_sentence():
    assert tokenize("Who is X's father? He is Y.") == [
        "Who",
        "is",
        "X",
        "'s",
        "father",
        "?",
        "He",
        "is",
        "Y",
        ".",
    ]


def test_fast_self_bleu_equals_nltk_texygen_definition():
    rng = random.Random(0)
    words = ["the", "of", "a", "capital", "country", "which", "is", "who", "what", "Paris", "born"]
    texts = [
        " ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) + rng.choice(["?", ".", ""])
        for _ in range(60)
    ] + ["a", "", "Which is the capital of France?", "Which is the capital of France?"]
    fast = self_bleu(texts)
    toks = [tokenize(t) for t in texts]
    smooth = SmoothingFunction().method1
    by_hand = [
        nltk_sentence_bleu(toks[:i] + toks[i + 1 :], h, (0.25,) * 4, smoothing_function=smooth)
        for i, h in enumerate(toks)
    ]
    assert fast == pytest.approx(sum(by_hand) / len(by_hand), abs=1e-12)
    assert self_bleu(texts, backend="nltk") == pytest.approx(fast, abs=1e-12)
    assert self_bleu(["only one"]) is None
    with pytest.raises(ValueError, match="unknown self-BLEU backend"):
        self_bleu(texts, backend="x")


def test_self_bleu_samples_with_the_seed():
    texts = [f"question number {i} about thing {i % 7}" for i in range(50)]
    assert self_bleu(texts, sample=10, seed=1) == self_bleu(texts, sample=10, seed=1)
    assert self_bleu(texts, sample=10, seed=1) != self_bleu(texts, sample=10, seed=2)


def test_answer_entropy_hand_computed():
    assert answer_entropy(["x", "X", "y", "z"]) == pytest.approx(1.5)
    assert answer_entropy(["a"] * 5) == 0.0
    assert answer_entropy([]) is None


def test_dataset_stats_per_type_and_definition():
    qs = [
        {"type": "SH", "question": "a b c d", "answer": "x"},
        {"type": "SH", "question": "a b c e", "answer": "y"},
        {"type": "HS", "question": "q", "answer": "x"},
    ]
    s = dataset_stats(qs, sample=500, seed=0)
    assert s["per_type"]["SH"]["answer_entropy_bits"] == pytest.approx(1.0)
    assert s["per_type"]["HS"]["self_bleu"] is None
    assert s["all"]["n"] == 3 and s["all"]["self_bleu_sample"] == 3
    assert s["self_bleu_definition"].startswith(SELF_BLEU_DEFINITION)
    assert "method1" in s["self_bleu_definition"] and "500" in s["self_bleu_definition"]


def _mp(pair: tuple[str, str], answer: str, text: str) -> dict:
    prem = [{"subject": "s", "relation": pair[0], "object": "b"}]
    prem.append({"subject": "b", "relation": pair[1], "object": answer})
    return {"type": "MP", "question": text, "answer": answer, "premises": prem}


def test_stats_report_the_mp_spread_and_the_ratio_to_the_source(tmp_path):
    import json

    from click.testing import CliRunner
    from kg_qgen.cli import cli

    qs = [
        _mp(("position", "sport"), "football", "Which sport does Ann play by the rule?"),
        _mp(("position", "sport"), "baseball", "By the rule, what sport is Bob in?"),
        _mp(("citizenship", "continent"), "Europe", "On which continent is Cy a citizen?"),
    ]
    s = dataset_stats(qs)
    assert s["per_type"]["MP"]["rule_pairs"] == {
        "position -> sport": 2,
        "citizenship -> continent": 1,
    }
    src = [
        {"type": "source", "question": "Which sport does Ann play?", "answer": "football"},
        {"type": "source", "question": "Which sport does Bob play?", "answer": "baseball"},
    ]
    for name, rows in (("questions.jsonl", qs), ("source_questions.jsonl", src)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = CliRunner().invoke(cli, ["stats", str(tmp_path)])
    assert out.exit_code == 0, out.output
    ratio = dataset_stats(qs)["all"]["self_bleu"] / dataset_stats(src)["all"]["self_bleu"]
    assert f"= {ratio:.2f} (the paper's" in out.output
    assert "MP relation pairs (n=3, answer entropy 1.585 bits): position -> sport 2, " in out.output
