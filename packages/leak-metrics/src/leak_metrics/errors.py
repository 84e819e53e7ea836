"""Exceptions raised by leak-metrics."""

from __future__ import annotations


class LeakMetricsError(Exception):
    """Base class for every error this package raises on purpose."""


class InputError(LeakMetricsError, ValueError):
    """A user-supplied file or record is malformed; the message names file, line and field."""


class MissingExtraError(LeakMetricsError, ImportError):
    """An optional dependency group (``llm`` or ``local``) is not installed."""


class UnknownNameError(LeakMetricsError, KeyError):
    """A registry lookup failed; the message lists close matches and every known name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class JudgeEndpointError(LeakMetricsError):
    """A judge endpoint cannot be used: unreachable, key refused (401/403), or model unknown
    (404). The one-line message names the base URL (credentials stripped), never the key."""
