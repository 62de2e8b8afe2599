"""simt: Python kernels on every GPU thread."""

__version__ = "0.1.0"
