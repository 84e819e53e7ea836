"""Exceptions raised by recover-attacks; each message names the offending input."""


class RecoverAttacksError(Exception):
    """Base class for every error raised by this package."""


class UnknownAttackError(RecoverAttacksError, KeyError):
    """No attack is registered under the requested name."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class ConfigError(RecoverAttacksError, ValueError):
    """An attack config got an unknown field or a value of the wrong type."""


class RecordError(RecoverAttacksError, ValueError):
    """A question / relearn / context record is missing a field or is malformed."""


class ModelLoadError(RecoverAttacksError, OSError):
    """A model path or hub id could not be loaded as a causal language model."""


class ForgottenFactLeakError(RecoverAttacksError, ValueError):
    """Relearn or in-context data contains one of the forgotten facts (the attack would cheat)."""


class MissingDependencyError(RecoverAttacksError, ImportError):
    """An optional dependency (bitsandbytes) is not installed or cannot be imported."""
