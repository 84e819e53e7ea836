"""Recovery attacks against unlearned LLMs: sampling, FocusOnKey, quantization, relearning, in-context."""

__version__ = "0.1.0"
