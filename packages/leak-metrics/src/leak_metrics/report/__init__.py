"""Tables (Markdown, CSV, LaTeX) and plots (ideal-triangle radar, FQ heatmap)."""

from leak_metrics.report.plots import (
    forget_quality_heatmap,
    ideal_triangle_plots,
    radar_chart,
    recovery_curve_figure,
)
from leak_metrics.report.tables import forget_quality_table, format_cell, recovery_rate_table

__all__ = [
    "forget_quality_heatmap",
    "forget_quality_table",
    "format_cell",
    "ideal_triangle_plots",
    "radar_chart",
    "recovery_curve_figure",
    "recovery_rate_table",
]
