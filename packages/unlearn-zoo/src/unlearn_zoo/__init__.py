"""LLM unlearning methods (GA, NPO, RMU, TV, PALU, AS, GradDiff, SimNPO) as transformers/TRL trainers."""

__version__ = "0.1.0"
