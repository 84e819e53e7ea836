"""The one exception type the CLI turns into a one-line message and a non-zero exit."""


class LeakresError(Exception):
    """A user-facing problem (bad option, missing model, unwritable directory).

    The CLI prints ``error: <message>`` on one line and exits with status 2; no traceback.
    """
