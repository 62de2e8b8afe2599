"""Renderers: IR in, source text out (CUDA C++, WGSL, LLVM IR, NumPy). No device calls here."""
