"""Errors of the generation engines (all subclass the package's ``RecoverAttacksError``)."""

from __future__ import annotations

from ..errors import RecoverAttacksError, UnknownNameError


class EngineError(RecoverAttacksError, ValueError):
    """Bad engine input or settings; the message names the prompt, field or option."""


class UnknownEngineError(EngineError, UnknownNameError):
    """No engine is registered under the requested name (an :class:`UnknownNameError`)."""


class ServerError(RecoverAttacksError, RuntimeError):
    """An inference server could not be started, did not become healthy, or failed a request."""
