"""Where a model comes from and how it answers: the model names the benchmark knows (``catalog``),
the engine that generates answers (``engines``), endpoint-only models (``black_box``), models unlearned
elsewhere (``external``, ``external_base``: ``leakres eval``) and the content hash of weights
(``weights``).

May import: ``config``, ``scale`` (the store), ``stages`` (for ``external``'s reuse of the run's
stages), the CLI's top-level helpers and the four libraries. Never ``outputs`` nor ``commands``.
"""
