"""The engine on the real default model (SmolLM2-135M-Instruct) and 64 real MQuAKE dev questions:
greedy answers equal a one-prompt-at-a-time greedy loop's on the same 24-token budget."""

from __future__ import annotations

import torch
from recover_attacks.engine import DecodingConfig, LocalEngine
from recover_attacks.generation import format_prompt

# A logit gap below this is float32 noise for logits of this model (|logit| ~ 10-30): two
# computations of the same logits in different matrix shapes differ by ~1e-5 here.
TIE = 1e-3


@torch.no_grad()
def test_greedy_equals_the_one_prompt_loop_on_64_mquake_questions(
    smollm2, mquake_questions, one_thread
):
    model, tokenizer = smollm2
    prompts = [format_prompt(tokenizer, q) for q in mquake_questions]
    engine = LocalEngine(model, tokenizer)
    texts = engine.complete(prompts, DecodingConfig(max_new_tokens=24))
    answers = engine.last_token_ids
    assert engine.last_stats.prefix_tokens > 10  # the system prompt is computed once
    assert len(texts) == 64 and all(len(t) == 1 for t in texts)
    eos = model.generation_config.eos_token_id
    eos = set(eos if isinstance(eos, list) else [eos])

    # The one-prompt loop's decision at every step, for each prompt alone (batch 1, no padding,
    # no shared cache): the argmax after the prompt and each answer token so far. Greedy decoding
    # is deterministic, so agreeing at every step is the loop producing the same answer.
    ties = []
    for i, prompt in enumerate(prompts):
        ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        answer = answers[i][0]
        logits = model(input_ids=torch.tensor([ids + answer])).logits[0, len(ids) - 1 :]
        choices = logits.argmax(-1).tolist()
        expected_end = len(answer) < 24  # the engine stopped at EOS
        steps = answer + ([next(iter(eos))] if expected_end else [])
        for step, token in enumerate(steps):
            if token in eos and choices[step] in eos:
                break
            if choices[step] != token:
                top2 = torch.topk(logits[step].float(), 2).values
                ties.append((i, step, float(top2[0] - top2[1])))
                break
    # Any difference must be a numerical tie at the first differing step.
    assert all(gap < TIE for _, _, gap in ties), ties
    assert len(ties) <= 2, ties
    print(f"engine vs one-prompt loop: {64 - len(ties)}/64 identical; ties: {ties}")
