"""A run's configuration, before anything loads: ``RunConfig`` and its presets (``run_config``), the
click options generated from it (``options``), the shipped per-(method, model) settings
(``paper_settings``), names that become paths (``paths``), ``leakres eval``'s input files (``inputs``,
``fact_check``) and the checks made before any model loads (``preflight``).

May import: the CLI's top-level helpers (``errors``, ``redact``, ``records``), ``models`` and ``scale``
(model names, engines and the grid, for the checks) and the four libraries; never ``outputs`` nor
``commands``. One known arrow into ``stages`` remains: ``preflight`` asks ``stages.judging`` which judges
need an endpoint, inside functions (issue 37 item 1, "resolve once", is to remove it).
"""
