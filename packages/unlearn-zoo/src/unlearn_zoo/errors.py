"""The exceptions unlearn-zoo raises: :class:`UnlearnError` for bad input and unrecoverable runs,
and its subclass :class:`UnknownNameError` for a name no registry knows."""


class UnlearnError(ValueError):
    """Bad configuration, bad input data, or a run that cannot continue (message says which)."""


class UnknownNameError(UnlearnError, KeyError):
    """A registry lookup failed; the message says "did you mean" and lists every known name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
