"""``leakres tune``: the seeded learning-rate x epochs search for one method (``tuning``), its grid and
selection rule (``tune_rule``) and its outputs (``tune_output``).

May import: ``config``, ``stages``, ``scale``, ``models``, the CLI's top-level helpers and the four
libraries. Never ``commands``.
"""
