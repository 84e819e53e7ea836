"""BIG-Bench Hard (27 tasks) utility scoring with the official chain-of-thought few-shot prompts.

- :mod:`~leak_metrics.bbh.data`: task names, loading (local copy or canonical download), the
  seeded example subset.
- :mod:`~leak_metrics.bbh.prompting`: CoT and answer-only prompts, stop strings.
- :mod:`~leak_metrics.bbh.scoring`: answer extraction, normalisation, exact match, macro average.
- :mod:`~leak_metrics.bbh.generation`: the :data:`GenerateFn` contract and the stand-alone
  fallback loop.
- :mod:`~leak_metrics.bbh.evaluate`: :func:`evaluate_bbh`, :class:`BBHResult`.

torch/transformers (the ``local`` extra) are needed only by the fallback loop and
:func:`load_model`.
"""

from leak_metrics.bbh.checksums import BBH_COMMIT
from leak_metrics.bbh.data import (
    BBH_TASKS,
    MAX_DOWNLOAD_BYTES,
    REMOTE_BASE,
    BBHDownloadError,
    BBHTask,
    default_cache_dir,
    default_data_dir,
    fetch_verified,
    load_bbh_task,
    select_examples,
)
from leak_metrics.bbh.evaluate import BBHConfig, BBHResult, evaluate_bbh
from leak_metrics.bbh.generation import (
    GenerateFn,
    cut_at_stop,
    generate_batched,
    transformers_generate_fn,
)
from leak_metrics.bbh.models import load_model
from leak_metrics.bbh.prompting import (
    ANSWER_CUE,
    COT_CUE,
    STOP,
    build_prompt,
    direct_prompt,
    few_shot_prefix,
)
from leak_metrics.bbh.scoring import extract_answer, is_correct, macro_average, normalize_answer

__all__ = [
    "ANSWER_CUE",
    "BBH_COMMIT",
    "BBH_TASKS",
    "COT_CUE",
    "MAX_DOWNLOAD_BYTES",
    "REMOTE_BASE",
    "STOP",
    "BBHConfig",
    "BBHDownloadError",
    "BBHResult",
    "BBHTask",
    "GenerateFn",
    "build_prompt",
    "cut_at_stop",
    "default_cache_dir",
    "default_data_dir",
    "direct_prompt",
    "evaluate_bbh",
    "extract_answer",
    "fetch_verified",
    "few_shot_prefix",
    "generate_batched",
    "is_correct",
    "load_bbh_task",
    "load_model",
    "macro_average",
    "normalize_answer",
    "select_examples",
    "transformers_generate_fn",
]
