"""A run's configuration, before anything loads: ``RunConfig`` and its presets (``run_config``), the
click options generated from it (``options``), the one resolve step that turns it into a frozen
``ResolvedRun`` (``resolve``) and the checks it makes (``preflight``, ``run_checks``, ``judges``), the
shipped per-(method, model) settings (``paper_settings``), names that become paths (``paths``), and
``leakres eval``'s input files (``inputs``, ``fact_check``), its run options and
``RunConfig`` (``eval_config``) and its preflight (``eval_check``).

May import: the CLI's top-level helpers (``errors``, ``redact``, ``records``), ``models`` (model names
and engines, for the checks) and the four libraries; never ``stages``, ``outputs`` nor ``commands``.
"""
