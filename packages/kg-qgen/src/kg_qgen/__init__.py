"""Knowledge graph + logic-typed multi-hop question generation for unlearning benchmarks."""

__version__ = "0.1.0"
