"""Built-in attacks, one module each (imported lazily by the registry)."""
