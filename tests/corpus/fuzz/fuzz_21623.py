# found by `python -m simt fuzz --seed 21623 --count 1`: mismatch on webgpu, then shrunk
"""simt fuzz kernel, seed 21623."""
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 21623, 'grid': 1, 'block': 64, 'fp64': False}
NSLOT_fo = 5
NSLOT_io = 4
NSLOT_uo = 2
NSLOT_fx = 2
NSLOT_do = 1

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = simt.grid(1)
    t = thread_idx.x
    j0 = ia[i % 64]
    v1 = abs(j0) >> t
    v7 = fa[v1 % 64]
    simt.syncthreads()
    fo[i * NSLOT_fo + 2] = v7
