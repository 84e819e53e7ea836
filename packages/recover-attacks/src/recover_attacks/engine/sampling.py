"""Next-token choice per row: greedy argmax, or sampling with one generator per response.

The warpers reproduce transformers' ``TemperatureLogitsWarper``, ``TopKLogitsWarper`` and
``TopPLogitsWarper`` (in that order). Sampling draws one uniform number per row from the row's
own CPU generator and inverts the row's CDF, so a response's random stream depends only on its
seed (see :func:`~recover_attacks.engine.config.request_seed`), never on the other rows, the batch
size or the device.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .config import DecodingConfig


def warp(logits: torch.Tensor, config: DecodingConfig) -> torch.Tensor:
    """Temperature, then top-k, then top-p filtering (filtered tokens get ``-inf``)."""
    scores = logits.float() / config.temperature
    if config.top_k > 0 and config.top_k < scores.shape[-1]:
        kth = torch.topk(scores, config.top_k, dim=-1).values[..., -1:]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    if config.top_p < 1.0:
        sorted_scores, sorted_idx = torch.sort(scores, dim=-1, descending=False)
        cumulative = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
        remove_sorted = cumulative <= (1 - config.top_p)
        remove_sorted[..., -1:] = False  # keep at least the most likely token
        remove = remove_sorted.scatter(-1, sorted_idx, remove_sorted)
        scores = scores.masked_fill(remove, float("-inf"))
    return scores


def choose(
    logits: torch.Tensor,
    config: DecodingConfig,
    generators: Sequence[torch.Generator | None],
) -> torch.Tensor:
    """One token id per row of ``logits`` ``[rows, vocab]`` (a CPU ``long`` tensor)."""
    if not config.do_sample:
        return logits.argmax(dim=-1).cpu()
    probs = warp(logits, config).softmax(dim=-1)
    cdf = probs.cumsum(dim=-1)
    uniform = torch.empty(len(generators), dtype=torch.float64)
    for row, gen in enumerate(generators):
        uniform[row] = torch.rand((), generator=gen, dtype=torch.float64)
    # Scale by the row's total mass so rounding can never push u past the last kept token.
    u = uniform.to(cdf.device, cdf.dtype).unsqueeze(-1) * cdf[:, -1:]
    picked = torch.searchsorted(cdf, u, right=False).clamp_(max=cdf.shape[-1] - 1)
    return picked.squeeze(-1).cpu()


def make_generator(seed: int) -> torch.Generator:
    gen = torch.Generator(device="cpu")
    gen.manual_seed(seed)
    return gen
