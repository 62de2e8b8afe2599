# found by `python -m simt fuzz --seed 22054 --count 1`: mismatch on webgpu, then shrunk
"""simt fuzz kernel, seed 22054."""
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 22054, 'grid': 1, 'block': 32, 'fp64': False}
NSLOT_fo = 4
NSLOT_io = 3
NSLOT_uo = 1
NSLOT_fx = 3
NSLOT_do = 1

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = simt.grid(1)
    x0 = fa[i % 64]
    j0 = ia[i % 64]
    simt.syncthreads()
    v10 = abs(j0) >> math.floor(x0)
    fx[i * NSLOT_fx + 0] = math.log(fa[v10 % 64])
