"""The leakres command: leak-resistant unlearning benchmark end to end, and its library entry point.

``run_benchmark(config, out_dir) -> RunResult`` runs one benchmark from Python (what ``leakres run``
does for each model of its grid); ``RunConfig`` and ``preset_config`` build its configuration.
"""

from .api import RunResult, run_benchmark
from .config import RunConfig, preset_config
from .version import __version__

__all__ = ["RunConfig", "RunResult", "__version__", "preset_config", "run_benchmark"]
