"""Every loss against an independent, explicit computation on a tiny random model."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from conftest import FORGET, RETAIN
from unlearn_zoo import losses
from unlearn_zoo.data import PairedCollator, PairedDataset, encode_records


def _batch(tokenizer: Any, records: list[dict[str, Any]]) -> dict[str, torch.Tensor]:
    enc = encode_records(tokenizer, records, max_length=64)
    batch = PairedCollator(tokenizer.pad_token_id or 0)([{"forget": e} for e in enc])
    return {k.removeprefix("forget_"): v for k, v in batch.items()}


def _explicit_seq_logprob(logits: torch.Tensor, labels: torch.Tensor) -> list[float]:
    """Token by token with plain Python loops: sum_t log softmax(logits[t-1])[labels[t]]."""
    out = []
    for b in range(labels.shape[0]):
        total = 0.0
        for t in range(1, labels.shape[1]):
            if labels[b, t] != -100:
                total += torch.log_softmax(logits[b, t - 1].double(), -1)[labels[b, t]].item()
        out.append(total)
    return out


def test_npo_matches_explicit_formula(tokenizer: Any, tiny_model: Any) -> None:
    batch = _batch(tokenizer, FORGET)
    torch.manual_seed(1)
    ref_model = type(tiny_model)(tiny_model.config).eval()
    with torch.no_grad():
        logits = tiny_model(
            input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
        ).logits
        ref = ref_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    lp = _explicit_seq_logprob(logits, batch["labels"])
    lr = _explicit_seq_logprob(ref, batch["labels"])
    beta = 0.1
    expected = (
        -(2 / beta)
        * sum(math.log(1 / (1 + math.exp(beta * (a - b)))) for a, b in zip(lp, lr, strict=True))
        / len(lp)
    )
    got = losses.npo_loss(
        losses.sequence_logprob(logits, batch["labels"]),
        losses.sequence_logprob(ref, batch["labels"]),
        beta,
    )
    assert abs(got.item() - expected) < 1e-3 * max(1.0, abs(expected))
    # identical policy and reference: log sigmoid(0) -> (2/beta) * log 2
    same = losses.npo_loss(torch.tensor([3.0, -7.0]), torch.tensor([3.0, -7.0]), beta)
    assert math.isclose(same.item(), (2 / beta) * math.log(2), rel_tol=1e-6)


def test_sequence_logprob_sums_only_answer_tokens(tokenizer: Any, tiny_model: Any) -> None:
    batch = _batch(tokenizer, FORGET)
    with torch.no_grad():
        logits = tiny_model(input_ids=batch["input_ids"]).logits
    got = losses.sequence_logprob(logits, batch["labels"])
    expected = _explicit_seq_logprob(logits, batch["labels"])
    assert torch.allclose(got.double(), torch.tensor(expected, dtype=torch.float64), atol=1e-3)
    n_answer = (batch["labels"] != -100).sum(-1)
    assert torch.equal(losses.answer_lengths(batch["labels"]), n_answer.float())


def test_nll_and_ga_sign_and_masking(tokenizer: Any, tiny_model: Any) -> None:
    batch = _batch(tokenizer, FORGET)
    logits = tiny_model(input_ids=batch["input_ids"]).logits.detach()
    labels = batch["labels"]
    expected = F.cross_entropy(
        logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1)
    )
    assert torch.allclose(losses.nll_loss(logits, labels), expected, atol=1e-5)
    assert torch.allclose(losses.ga_loss(logits, labels), -expected, atol=1e-5)
    # Logits that predict prompt/padding tokens do not matter.
    noisy = logits.clone()
    predicts_masked = labels[:, 1:] == -100
    noisy[:, :-1][predicts_masked] += 100 * torch.randn_like(noisy[:, :-1][predicts_masked])
    assert torch.allclose(losses.nll_loss(noisy, labels), expected, atol=1e-5)
    # Gradient of GA points opposite to the NLL gradient.
    x = logits.clone().requires_grad_(True)
    losses.ga_loss(x, labels).backward()
    y = logits.clone().requires_grad_(True)
    losses.nll_loss(y, labels).backward()
    assert torch.allclose(x.grad, -y.grad)


def test_simnpo_formula() -> None:
    lp = torch.tensor([-12.0, -3.0])
    lengths = torch.tensor([4.0, 2.0])
    beta, gamma = 2.5, 0.5
    expected = (
        -(2 / beta)
        * sum(
            math.log(1 / (1 + math.exp((beta / n) * a + gamma)))
            for a, n in zip(lp.tolist(), lengths.tolist(), strict=True)
        )
        / 2
    )
    assert math.isclose(losses.simnpo_loss(lp, lengths, beta, gamma).item(), expected, rel_tol=1e-5)


def test_palu_local_touches_only_onset_positions() -> None:
    torch.manual_seed(0)
    logits = torch.randn(2, 6, 11, requires_grad=True)
    ref = torch.randn(2, 6, 11)
    onset = torch.zeros(2, 6, dtype=torch.long)
    onset[0, 3] = 1  # predicted from position 2
    onset[1, 5] = 1  # predicted from position 4
    loss = losses.palu_local_loss(logits, ref, onset, top_k=4)
    # explicit
    terms = []
    for b, t in [(0, 2), (1, 4)]:
        z = logits[b, t]
        idx = ref[b, t].topk(4).indices
        terms.append(((z[idx] - z.mean()) ** 2).mean())
    assert torch.allclose(loss, torch.stack(terms).mean())
    loss.backward()
    grad_rows = logits.grad.abs().sum(-1) > 0
    expected_rows = torch.zeros(2, 6, dtype=torch.bool)
    expected_rows[0, 2] = expected_rows[1, 4] = True
    assert torch.equal(grad_rows, expected_rows)
    # c is not detached: the gradient also reaches logits outside the top-K at onset rows.
    idx = ref[0, 2].topk(4).indices
    outside = torch.ones(11, dtype=torch.bool)
    outside[idx] = False
    assert logits.grad[0, 2][outside].abs().sum() > 0
    # no onset at all -> zero, still differentiable
    zero = losses.palu_local_loss(logits, ref, torch.zeros_like(onset), 4)
    assert zero.item() == 0.0 and zero.requires_grad


def test_token_kl_matches_torch_kl() -> None:
    torch.manual_seed(0)
    logits, ref = torch.randn(1, 5, 7), torch.randn(1, 5, 7)
    mask = torch.tensor([[0, 0, 1, 1, 0]])
    p = torch.log_softmax(logits[0, 1:3], -1)
    q = torch.log_softmax(ref[0, 1:3], -1)
    expected = F.kl_div(q, p, log_target=True, reduction="batchmean")  # KL(P_theta || P_ref)
    assert torch.allclose(losses.token_kl(logits, ref, mask), expected, atol=1e-6)
    assert losses.token_kl(logits, logits, mask).abs() < 1e-6


def test_rmu_losses_are_masked_mse() -> None:
    torch.manual_seed(0)
    h = torch.randn(2, 4, 8)
    control = torch.randn(8)
    mask = torch.tensor([[1, 1, 0, 0], [1, 0, 0, 0]])
    rows = torch.stack([h[0, 0], h[0, 1], h[1, 0]])
    assert torch.allclose(losses.rmu_forget_loss(h, control, mask), ((rows - control) ** 2).mean())
    frozen = torch.randn(2, 4, 8)
    frows = torch.stack([frozen[0, 0], frozen[0, 1], frozen[1, 0]])
    assert torch.allclose(losses.rmu_retain_loss(h, frozen, mask), F.mse_loss(rows, frows))


def test_attention_target_and_kl() -> None:
    torch.manual_seed(0)
    attn = torch.softmax(torch.randn(1, 2, 4, 4), -1)
    important = torch.tensor([[0, 1, 0, 0]])
    target = losses.attention_target(attn, important, lam=0.99)
    assert torch.allclose(target.sum(-1), torch.ones(1, 2, 4))
    manual = attn.clone()
    manual[..., 1] *= 0.01
    manual = manual / manual.sum(-1, keepdim=True)
    assert torch.allclose(target, manual)
    qmask = torch.tensor([[1, 1, 1, 0]])
    kl = losses.attention_kl(attn, target, qmask)
    expected = (
        sum(
            (attn[0, h, i] * (attn[0, h, i].log() - target[0, h, i].log())).sum()
            for h in range(2)
            for i in range(3)
        )
        / 3
    )
    assert torch.allclose(kl, expected, atol=1e-5)
    assert losses.attention_kl(attn, attn, qmask).abs() < 1e-6


def test_encoding_labels_and_span_masks(tokenizer: Any) -> None:
    enc = encode_records(tokenizer, FORGET + RETAIN, max_length=64, onset_tokens=2)
    e = enc[0]
    answer_ids = [t for t in e.labels if t != -100]
    assert tokenizer.decode(answer_ids[:-1]) == FORGET[0]["answer"]
    assert answer_ids[-1] == tokenizer.eos_token_id
    # onset tokens lie inside the answer and spell the start of a span found there
    onset_pos = [i for i, m in enumerate(e.onset_mask) if m]
    assert onset_pos and all(e.labels[i] != -100 for i in onset_pos)
    assert set(e.spans_found) == {"France", "Paris"}
    imp_text = tokenizer.decode([e.input_ids[i] for i, m in enumerate(e.important_mask) if m])
    assert "France" in imp_text and "Paris" in imp_text
    # the prompt is exactly the chat-formatted question
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": FORGET[0]["question"]}],
        add_generation_prompt=True,
        tokenize=False,
    )
    n_prompt = sum(1 for t in e.labels if t == -100)
    assert tokenizer.decode(e.input_ids[:n_prompt]) == prompt
    ds = PairedDataset(enc[:2], enc[2:], seed=0)
    seen = {id(ds[i % 2]["retain"]) for i in range(20)}
    assert seen == {id(enc[2]), id(enc[3])}, "every retain example gets used"
    assert [id(PairedDataset(enc[:2], enc[2:], seed=0)[0]["retain"]) for _ in range(1)] == [
        id(PairedDataset(enc[:2], enc[2:], seed=0)[0]["retain"])
    ]
