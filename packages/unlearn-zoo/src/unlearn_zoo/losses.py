"""Unlearning losses as pure functions on tensors, reusable in any training loop.

Conventions (all functions):
- ``logits``: ``[B, T, V]`` from a causal LM; position t predicts token t+1.
- ``labels``: ``[B, T]`` token ids with ``-100`` on prompt and padding (HF convention, unshifted).
  Functions shift internally, so pass labels aligned with ``input_ids``.
- masks (``onset_mask``, ``token_mask``...): ``[B, T]`` aligned with ``input_ids`` like labels.
- "answer tokens" are the positions where ``labels != -100``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

IGNORE_INDEX = -100


def _shift(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return logits[:, :-1, :], labels[:, 1:]


def token_logprobs(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """log p(label_t | prefix) per target position ``[B, T-1]`` and the answer mask (float)."""
    logits, labels = _shift(logits, labels)
    mask = labels != IGNORE_INDEX
    safe = labels.masked_fill(~mask, 0)
    logp = torch.log_softmax(logits.float(), dim=-1).gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    return logp * mask, mask.float()


def sequence_logprob(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """log p(y|x) summed over answer tokens, one value per sequence ``[B]``."""
    logp, _ = token_logprobs(logits, labels)
    return logp.sum(-1)


def answer_lengths(labels: torch.Tensor) -> torch.Tensor:
    """Number of answer tokens per sequence ``[B]`` (float)."""
    return (labels[:, 1:] != IGNORE_INDEX).sum(-1).float()


def nll_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood over all answer tokens of the batch (token-level mean)."""
    logp, mask = token_logprobs(logits, labels)
    return -(logp.sum() / mask.sum().clamp(min=1.0))


def ga_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Gradient ascent: ``-NLL(answer | question)``; minimising it raises the forget NLL."""
    return -nll_loss(logits, labels)


def npo_loss(logp_seq: torch.Tensor, ref_logp_seq: torch.Tensor, beta: float) -> torch.Tensor:
    """NPO (Zhang et al. 2024): ``-(2/beta) * mean log sigmoid(-beta * (log p - log p_ref))``.

    ``logp_seq`` / ``ref_logp_seq``: sequence log-probs ``[B]`` summed over answer tokens; the
    reference must come from the frozen original model (detached).
    """
    return -(2.0 / beta) * F.logsigmoid(-beta * (logp_seq - ref_logp_seq.detach())).mean()


def simnpo_loss(
    logp_seq: torch.Tensor, lengths: torch.Tensor, beta: float, gamma: float
) -> torch.Tensor:
    """SimNPO (Fan et al. 2024): ``-(2/beta) * mean log sigmoid(-(beta/|y|) log p(y|x) - gamma)``.

    Reference-free; the length-normalised log-prob replaces NPO's reference ratio.
    """
    return -(2.0 / beta) * F.logsigmoid(-(beta / lengths.clamp(min=1.0)) * logp_seq - gamma).mean()


def masked_mse(a: torch.Tensor, b: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
    """Mean over masked tokens and hidden dims of ``(a - b)^2``; ``a, b: [B, T, H]``."""
    m = token_mask.unsqueeze(-1).to(a.dtype)
    sq = ((a.float() - b.float()) ** 2) * m
    return sq.sum() / (m.sum().clamp(min=1.0) * a.shape[-1])


def rmu_forget_loss(
    hidden: torch.Tensor, control: torch.Tensor, token_mask: torch.Tensor
) -> torch.Tensor:
    """RMU forget term: mean ``||h_l - c*u||^2`` (per element) over masked tokens.

    ``control`` is the fixed steering vector ``c * u`` ``[H]`` (u uniform random, unit norm).
    """
    return masked_mse(hidden, control.view(1, 1, -1).expand_as(hidden), token_mask)


def rmu_retain_loss(
    hidden: torch.Tensor, frozen_hidden: torch.Tensor, token_mask: torch.Tensor
) -> torch.Tensor:
    """RMU retain term: mean ``||h_l - h_l^frozen||^2`` over masked tokens (frozen detached)."""
    return masked_mse(hidden, frozen_hidden.detach(), token_mask)


def palu_local_loss(
    logits: torch.Tensor, ref_logits: torch.Tensor, onset_mask: torch.Tensor, top_k: int
) -> torch.Tensor:
    """PALU local term at onset positions of entity spans.

    At every position t with ``onset_mask[t] = 1`` (the token being predicted), take the top-K
    vocabulary indices of the frozen reference's logits, and penalise ``mean_k (z_k - c)^2`` where
    ``z`` are the current logits and ``c = mean_v z_v`` (not detached): the reference's favoured
    candidates are flattened to the average logit. Returns the mean over onset positions (0 when
    there are none, still attached to the graph).
    """
    logits = logits[:, :-1, :].float()
    ref_logits = ref_logits[:, :-1, :].detach()
    mask = onset_mask[:, 1:].bool()
    if not mask.any():
        return logits.sum() * 0.0
    z = logits[mask]  # [N, V]
    idx = ref_logits[mask].topk(min(top_k, z.shape[-1]), dim=-1).indices
    c = z.mean(dim=-1, keepdim=True)
    return ((z.gather(-1, idx) - c) ** 2).mean()


def token_kl(
    logits: torch.Tensor, ref_logits: torch.Tensor, token_mask: torch.Tensor
) -> torch.Tensor:
    """Mean over masked target positions of ``KL(P_theta || P_ref)`` of the next-token distributions.

    ``token_mask`` ``[B, T]`` marks target tokens (aligned with labels); 0 when empty.
    """
    logp = torch.log_softmax(logits[:, :-1, :].float(), dim=-1)
    ref_logp = torch.log_softmax(ref_logits[:, :-1, :].detach().float(), dim=-1)
    mask = token_mask[:, 1:].float()
    kl = (logp.exp() * (logp - ref_logp)).sum(-1)
    return (kl * mask).sum() / mask.sum().clamp(min=1.0)


def attention_target(
    frozen_attn: torch.Tensor, important_mask: torch.Tensor, lam: float
) -> torch.Tensor:
    """AS target attention: frozen attention ``[B, H, T, T]`` with the key columns of important
    tokens multiplied by ``(1 - lam)``, then every row renormalised to sum to 1."""
    scale = 1.0 - lam * important_mask.to(frozen_attn.dtype)  # [B, T] over keys
    shifted = frozen_attn.detach() * scale[:, None, None, :]
    return shifted / shifted.sum(-1, keepdim=True).clamp(min=1e-12)


def attention_kl(
    attn: torch.Tensor, target: torch.Tensor, query_mask: torch.Tensor, eps: float = 1e-8
) -> torch.Tensor:
    """``sum_heads KL(A_theta || A_target)`` per query row, averaged over valid query rows.

    ``attn``/``target``: ``[B, H, T, T]`` row-stochastic; ``query_mask`` ``[B, T]`` (1 = real token).
    """
    a = attn.float()
    kl = (a * (torch.log(a + eps) - torch.log(target.detach().float() + eps))).sum(-1)  # [B,H,T]
    kl = kl.sum(1)  # sum over heads
    m = query_mask.float()
    return (kl * m).sum() / m.sum().clamp(min=1.0)
