"""Judges, Forget Quality, Recovery Rate, BBH utility, tables and plots for unlearning benchmarks."""

__version__ = "0.1.0"
