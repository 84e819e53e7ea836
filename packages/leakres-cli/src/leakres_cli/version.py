"""The package version, in a module of its own: the package's ``__init__`` imports the library
entry point, so a module reading the version from ``__init__`` would close an import circle."""

__version__ = "0.1.0"
