"""Exceptions raised by recover-attacks; each message names the offending input."""


class RecoverAttacksError(Exception):
    """Base class for every error raised by this package."""


class UnknownNameError(RecoverAttacksError, KeyError):
    """A registry lookup failed; the message says "did you mean" and lists every known name."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


UnknownAttackError = UnknownNameError
"""Deprecated alias of :class:`UnknownNameError` (the one unknown-name error of every registry)."""


class ConfigError(RecoverAttacksError, ValueError):
    """An attack config got an unknown field or a value of the wrong type."""


class RecordError(RecoverAttacksError, ValueError):
    """A question / relearn / context record is missing a field or is malformed."""


class MissingInputError(RecordError):
    """An attack needs an input (``original_model``, ``relearn_data``, ``context_facts``) that the
    caller did not give; the message names the attack and the input."""


class ModelLoadError(RecoverAttacksError, OSError):
    """A model path or hub id could not be loaded as a causal language model."""


class ForgottenFactLeakError(RecoverAttacksError, ValueError):
    """Relearn or in-context data contains one of the forgotten facts (the attack would cheat)."""


class MissingDependencyError(RecoverAttacksError, ImportError):
    """An optional dependency (bitsandbytes) is not installed or cannot be imported."""
