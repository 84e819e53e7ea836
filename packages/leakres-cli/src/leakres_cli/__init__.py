"""The leakres command: leak-resistant unlearning benchmark end to end, and its library entry point.

``run_benchmark(config, out_dir) -> RunResult`` runs one benchmark from Python (what ``leakres run``
does for each model of its grid); ``RunConfig`` and ``preset_config`` build its configuration.
``evaluate(base, unlearned, forget, out_dir, ...) -> RunResult`` is ``leakres eval`` (a model
unlearned elsewhere). results.json's layout: ``leakres_cli/data/results.schema.json``
(``results_schema()``, ``SCHEMA_VERSION``).
"""

from leakres_cli.api import RunResult, run_benchmark
from leakres_cli.config.run_config import RunConfig, preset_config
from leakres_cli.eval_api import evaluate
from leakres_cli.outputs.schema import SCHEMA_VERSION, results_schema
from leakres_cli.version import __version__

__all__ = [
    "SCHEMA_VERSION",
    "RunConfig",
    "RunResult",
    "__version__",
    "evaluate",
    "preset_config",
    "results_schema",
    "run_benchmark",
]
