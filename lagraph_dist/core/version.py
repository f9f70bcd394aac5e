"""The package's version (one place: the package, the command line and the records read it)."""
__version__ = "0.1.0"
