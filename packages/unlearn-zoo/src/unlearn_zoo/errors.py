"""The single exception type unlearn-zoo raises for bad input and unrecoverable runs."""


class UnlearnError(ValueError):
    """Bad configuration, bad input data, or a run that cannot continue (message says which)."""
