"""Silences one known-harmless log line, and nothing else.

bitsandbytes (imported for the Quantization attack) logs on every import on AVX-512-BF16 CPUs that it
could not fetch an optimised gemm_4bit kernel from the Hugging Face Hub ("kernels-community"). The Hub
is never reachable in an offline run and the built-in CPU kernel is used instead, so the line is noise
on every run. Only that message on that logger is dropped; every other warning still shows.
"""

from __future__ import annotations

import logging

BNB_CPU_LOGGER = "bitsandbytes.backends.cpu.ops"
BNB_KERNEL_MESSAGE = "Failed to load CPU gemm_4bit_forward from kernels-community"


class DropMessage(logging.Filter):
    """Drops records whose (unformatted) message starts with ``prefix``."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefix)


def install() -> None:
    """Add the filter once (idempotent); call before bitsandbytes is imported."""
    logger = logging.getLogger(BNB_CPU_LOGGER)
    if not any(
        isinstance(f, DropMessage) and f.prefix == BNB_KERNEL_MESSAGE for f in logger.filters
    ):
        logger.addFilter(DropMessage(BNB_KERNEL_MESSAGE))
