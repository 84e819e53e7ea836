"""Per-model-size default hyperparameters.

``default_overrides(method, n_params)`` returns config overrides to pass to ``get_unlearner``
(user overrides should be applied on top). Size tiers:

- ``small``  (< 500M params): on SmolLM2-135M-Instruct, GA's and NPO's lr x epochs are
  `leakres tune`'s picks, TV's that of an earlier, smaller search, the others set by hand (see the
  comment in DEFAULTS and leakres-cli README "Tuning");
  ``benchmarks/unlearnzoo_acceptance.py`` checks every method at 8 forget / 16 retain and 12 / 24
  facts (README "Acceptance run"). More forget facts mean more steps at the same epochs: retune
  for large sets.
- ``medium`` (< 10B): paper ranges (lr in [8e-7, 6e-5], few epochs), full fine-tuning.
- ``large``  (>= 10B): same with LoRA and gradient checkpointing to fit memory.
"""

from __future__ import annotations

from typing import Any

from unlearn_zoo.errors import UnknownNameError
from unlearn_zoo.registry import available_unlearners

SMALL_MAX = 500_000_000
MEDIUM_MAX = 10_000_000_000

DEFAULTS: dict[str, dict[str, dict[str, Any]]] = {
    "small": {
        # 1-5 epochs of batch 4 (the paper's 2-5; GA and NPO tuned to 1 at 48 forget facts).
        # NPO and PALU (no retain term in the paper's form) collapse once lr x steps passes a
        # narrow window, so they take batch 16: one step per epoch for up to 16 facts.
        # GA's and NPO's lr x epochs are `leakres tune --method M`'s picks on SmolLM2-135M-Instruct
        # with its default options (the default run's 48 forget facts, so the same steps per
        # epoch, and 32 retain facts beside them), each reproduced by the search over the grid
        # centred on it (lr x {0.5, 1, 2}, epochs {ceil(e/2), e}; leakres-cli README "Tuning").
        # TV's is the pick of an earlier search on 8 / 16 facts; the others are set by hand.
        "ga": {"lr": 4e-5, "epochs": 1.0, "batch_size": 4, "max_length": 96},
        "graddiff": {
            "lr": 1e-5,
            "epochs": 5.0,
            "batch_size": 4,
            "max_length": 96,
            "retain_weight": 1.0,
        },
        "npo": {"lr": 4e-5, "epochs": 1.0, "batch_size": 16, "max_length": 96},
        "simnpo": {
            "lr": 2e-5,
            "epochs": 5.0,
            "batch_size": 4,
            "max_length": 96,
            "retain_weight": 1.0,
        },
        "rmu": {
            "lr": 1e-3,
            "epochs": 5.0,
            "batch_size": 4,
            "max_length": 96,
            "steering_coeff": 100.0,
            "alpha": 100.0,
        },
        "tv": {"lr": 1.5e-5, "epochs": 3.0, "batch_size": 4, "max_length": 96, "alpha": 1.0},
        "palu": {"lr": 7e-6, "lam": 10.0, "epochs": 5.0, "batch_size": 16, "max_length": 96},
        "as": {
            "lr": 2e-2,
            "alpha": 0.9,
            "adapter_layers": (-4, -3, -2),
            "epochs": 5.0,
            "batch_size": 4,
            "max_length": 96,
        },
    },
    "medium": {
        "ga": {"lr": 1e-5, "epochs": 3, "batch_size": 4},
        "graddiff": {"lr": 1e-5, "epochs": 3, "batch_size": 4, "retain_weight": 1.0},
        "npo": {"lr": 1e-5, "epochs": 3, "batch_size": 4},
        "simnpo": {"lr": 1e-5, "epochs": 3, "batch_size": 4, "retain_weight": 1.0},
        "rmu": {"lr": 5e-5, "epochs": 3, "batch_size": 4, "steering_coeff": 6.5, "alpha": 1200.0},
        "tv": {"lr": 1e-5, "epochs": 5, "batch_size": 4, "alpha": 1.0},
        "palu": {"lr": 1e-5, "epochs": 3, "batch_size": 4},
        "as": {"lr": 5e-4, "epochs": 3, "batch_size": 4},
    },
}
_LARGE_EXTRA = {"use_lora": True, "gradient_checkpointing": True, "batch_size": 2}


def size_tier(n_params: int) -> str:
    if n_params < SMALL_MAX:
        return "small"
    if n_params < MEDIUM_MAX:
        return "medium"
    return "large"


def default_overrides(method: str, n_params: int) -> dict[str, Any]:
    """Recommended config overrides for ``method`` on a model with ``n_params`` parameters."""
    key = method.strip().lower()
    tier = size_tier(n_params)
    table = DEFAULTS["medium" if tier == "large" else tier]
    if key not in table:
        known = available_unlearners()
        if key in known:
            return {}  # plugin methods: their own config defaults apply
        raise UnknownNameError(
            f"no defaults for unknown unlearner '{method}'; Known: {', '.join(known)}"
        )
    out = dict(table[key])
    if tier == "large":
        # AS trains its own small adapter and never uses LoRA; RMU's LoRA targets its layers.
        extra = {k: v for k, v in _LARGE_EXTRA.items() if not (key == "as" and k == "use_lora")}
        out.update(extra)
    return out
