"""The benchmark's stages, in run order: questions, base model / teaching (``base_model``,
``base_stage``), base evaluation and the forget/retain split (``evaluation``, ``answering``,
``type_checks``), unlearning, the unlearned models' evaluation, judging, recovery attacks
(``attacking``), scoring (``scoring``, ``results``, and ``registered_metrics``: any metric registered
in leak-metrics that scoring does not compute), BBH, and ``pipeline`` that runs them in order.

May import: ``config``, ``models``, ``scale`` (the stage store and cells), the CLI's top-level helpers
(``errors``, ``redact``, ``records``, ``progress``) and the four libraries; from ``outputs`` only what
the run writes at its end (``schema``'s version, ``tracking``, ``run_facts``). Never ``commands``.
"""
