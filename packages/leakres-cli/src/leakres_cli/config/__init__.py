"""A run's configuration, before anything loads: ``RunConfig`` and its presets (``run_config``), the
click options generated from it (``options``), the shipped per-(method, model) settings
(``paper_settings``), names that become paths (``paths``), ``leakres eval``'s input files (``inputs``,
``fact_check``) and the checks made before any model loads (``preflight``).

May import: ``leakres_cli.errors``, ``leakres_cli.redact``, ``leakres_cli.records``, ``leakres_cli.models``
(model names and engines, for the checks) and the four libraries. Never ``stages``, ``outputs``,
``scale`` (except what preflight checks of the grid) nor ``commands``.
"""
