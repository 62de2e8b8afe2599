"""simt on Dask (`pip install 'simt[dask]'`): image functions, kernels and index expressions
over chunked arrays, on one machine or a `distributed` cluster. See docs/dask.md.

- `sobel(photo)` with `photo` a dask array: a lazy dask array (a halo exchange, the halo from the
  function's own reads; `simt.dask.images`);
- `simt.map_blocks(kernel, *args, block=..., halo=0)`: a kernel per chunk
  (`simt.dask.kernels`);
- `component.exec(a_dask, ...)` for index expressions: `blockwise`, chunked reductions
  combined in a tree (`simt.dask.tensor`).

Nothing in simt imports this package at `import simt`: the image function's call,
`simt.map_blocks` and `Component.exec` reach its `ENTRY_POINTS` through `simt.extras` (the
extras registry) when they meet a dask array.
"""

from __future__ import annotations

try:
    import dask.array  # noqa: F401 - fail here, with the message below, not deep inside
except ImportError as _e:  # pragma: no cover - the extra is installed in the test venv
    raise ImportError(
        f"simt's dask support needs the dask extra: pip install 'simt[dask]' "
        f"(dask[array] and distributed) ({_e})"
    ) from None

from .images import image_call, is_dask
from .kernels import ChunkOffset, chunk_offset, map_blocks
from .tensor import exec_dask

# what the parts below reach through `simt.extras.entry("dask", name)`
ENTRY_POINTS = {"map_blocks": map_blocks, "image_call": image_call, "tensor_exec": exec_dask}

__all__ = ["ChunkOffset", "chunk_offset", "image_call", "is_dask", "map_blocks"]
