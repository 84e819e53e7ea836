"""Errors of the generation engines (all subclass the package's ``RecoverAttacksError``)."""

from __future__ import annotations

from ..errors import RecoverAttacksError


class EngineError(RecoverAttacksError, ValueError):
    """Bad engine input or settings; the message names the prompt, field or option."""


class UnknownEngineError(EngineError, KeyError):
    """No engine is registered under the requested name."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class ServerError(RecoverAttacksError, RuntimeError):
    """An inference server could not be started, did not become healthy, or failed a request."""
