"""Running a grid of runs: the grid and its independent cells (``grid``), who runs the cells
(``executors``: local or Ray), GPU-hour and memory estimates (``costs``, ``memory``, ``leakres plan``),
the one-run-per-directory lock (``lock``) and the atomic, resumable stage store (``store``).

May import: ``config``, ``models`` (engines, weights), the CLI's top-level helpers and the four
libraries; ``stages`` only where a grid cell runs the pipeline or checks its judges (``grid``, inside
functions). Never ``outputs`` nor ``commands``.
"""
