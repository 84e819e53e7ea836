"""One module per method; each defines its config dataclass and Unlearner subclass."""
