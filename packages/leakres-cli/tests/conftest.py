"""Shared fixtures of the leakres-cli tests: where the real data lives (the shipped slice when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TEST_DATA = Path(__file__).resolve().parent / "data"


def data_dir() -> Path:
    env = os.environ.get("LEAKRES_DATA_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


def require_real_data(path: Path, what: str) -> Path:
    """``path`` when the real public data is there, else the small real slice shipped in tests/data at
    the same relative place (licence and source in its SOURCE.md), so a new clone runs every test.

    Under ``CI=true`` the full data must be present (CI stages it), so absence fails instead.
    """
    if path.exists():
        return path
    reason = f"data absent ({what} not found at {path}; set LEAKRES_DATA_DIR)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the real data")
    relative = path.relative_to(data_dir())
    sliced = TEST_DATA / relative
    if not sliced.exists():
        pytest.fail(f"{reason}, and no slice at {sliced}")
    return sliced


def is_slice(path: Path) -> bool:
    """True when a test reads the shipped slice instead of the full file (sizes differ)."""
    return TEST_DATA in Path(path).parents


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The data root holding BIG-Bench-Hard as leak-metrics reads it (``bbh/bbh/<task>.json``)."""
    root = data_dir()
    found = require_real_data(root / "bbh" / "bbh" / "boolean_expressions.json", "BIG-Bench-Hard")
    return TEST_DATA if is_slice(found) else root


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``LEAKRES_CACHE_DIR`` of the session's own (never the user's cache dir), shared by the
    tests that set one: the embedded GGUF is dequantized into it once per session, not once per
    test (tens of seconds each on a loaded CPU). It holds only content-keyed caches (the converted
    model, weight digests), so sharing it changes no number a test asserts."""
    return tmp_path_factory.mktemp("leakres-cache")


#: the tiny real run several files share: the CLI's default SmolLM2-135M-Instruct, built-in facts,
#: GA, Probab (the run's defaults), small sizes; ``--bootstrap 200`` keeps the scoring cheap
TINY_REAL_ARGS = ["run", "--quiet", "--n-forget", "4", "--n-retain", "4", "--per-type", "8",
                  "--sh-pool", "24", "--seed", "0", "--bootstrap", "200"]  # fmt: skip
#: ... run with a Probab ladder (test_attack_budgets reads it). ``--attack-budgets`` is run
#: control (no part of the fingerprint): the ladder adds cells of its own and changes no other
TINY_REAL_LADDER = ["--attack-budgets", "probab=1,2"]


@pytest.fixture(scope="session")
def tiny_real_run(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    """The run directory of ``leakres run TINY_REAL_ARGS TINY_REAL_LADDER`` (in process, one torch
    thread, the session's ``model_cache``), run once per session. READ-ONLY for the tests that take it: a test
    that writes into a run directory copies it first (``shutil.copytree``)."""
    import torch
    from click.testing import CliRunner
    from leakres_cli.main import cli

    out = tmp_path_factory.mktemp("tiny-real") / "run"
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the CLI tests that compare against it: the same float sums
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LEAKRES_CACHE_DIR", str(model_cache))
        try:
            result = CliRunner().invoke(cli, [*TINY_REAL_ARGS, *TINY_REAL_LADDER, "--out", str(out)], catch_exceptions=False)  # fmt: skip
        finally:
            torch.set_num_threads(threads)
    assert result.exit_code == 0, result.output
    return out
