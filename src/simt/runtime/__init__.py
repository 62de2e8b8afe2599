"""Runtimes ("devices"): compile rendered source, manage memory, launch."""
