"""Only bitsandbytes' "Failed to load CPU gemm_4bit_forward from kernels-community" line is silenced."""

from __future__ import annotations

import logging

import pytest
from leakres_cli import logfilters


@pytest.fixture()
def bnb_logger():
    logger = logging.getLogger(logfilters.BNB_CPU_LOGGER)
    saved = list(logger.filters)
    yield logger
    logger.filters[:] = saved


def test_only_the_kernel_message_is_dropped(bnb_logger, caplog) -> None:
    logfilters.install()
    logfilters.install()  # idempotent
    assert sum(isinstance(f, logfilters.DropMessage) for f in bnb_logger.filters) == 1
    with caplog.at_level(logging.WARNING):
        # The exact call bitsandbytes/backends/cpu/ops.py makes.
        bnb_logger.warning(
            "Failed to load CPU gemm_4bit_forward from kernels-community: %s. Please make sure you "
            "already `pip install kernels` and the kernels >= 0.11.1",
            "offline",
        )
        bnb_logger.warning("some other bitsandbytes warning")
        logging.getLogger("transformers").warning(
            "Failed to load CPU gemm_4bit_forward from kernels-community: elsewhere"
        )
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "some other bitsandbytes warning",
        "Failed to load CPU gemm_4bit_forward from kernels-community: elsewhere",
    ]


def test_the_cli_installs_the_filter(bnb_logger) -> None:
    from click.testing import CliRunner
    from leakres_cli.main import cli

    bnb_logger.filters[:] = []
    assert CliRunner().invoke(cli, ["list"]).exit_code == 0
    assert any(isinstance(f, logfilters.DropMessage) for f in bnb_logger.filters)


def test_the_logger_name_and_message_match_the_installed_bitsandbytes() -> None:
    # If bitsandbytes renames the module or rewords the line, this says so instead of the filter
    # silently doing nothing.
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(logfilters.BNB_CPU_LOGGER)
    assert spec is not None and spec.origin
    source = Path(spec.origin).read_text()
    assert "logger = logging.getLogger(__name__)" in source
    assert f'"{logfilters.BNB_KERNEL_MESSAGE}: %s.' in source
