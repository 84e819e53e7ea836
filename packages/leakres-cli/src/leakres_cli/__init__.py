"""The leakres command: leak-resistant unlearning benchmark end to end."""

__version__ = "0.1.0"
