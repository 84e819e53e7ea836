"""What a run writes and shows: results.json all or nothing (``write``) and its schema (``schema``),
summary.md and the printed table (``summary``), the paper tables and plots (``paper_report``), the
registered metrics as every output reads them (``metric_rows``: leak-metrics' registry), the HTML
report (``report/``), experiment trackers (``tracking``), the Hub push (``hub``) and the facts that let
``leakres eval`` reproduce a run (``run_facts``); ``leakres eval``'s own summary section
(``eval_summary``).

May import: ``config``, ``scale`` (the store), ``models`` (weights), the CLI's top-level helpers and
leak-metrics. Never ``stages`` nor ``commands``.
"""
