"""Public Numba-CUDA course programs run on simt with only their import lines changed."""
