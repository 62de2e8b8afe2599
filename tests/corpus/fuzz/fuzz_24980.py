# found by `python -m simt fuzz --seed 24980 --count 1`: mismatch on cpu, then shrunk
"""simt fuzz kernel, seed 24980."""
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 24980, 'grid': 1, 'block': 64, 'fp64': False, 'extras': []}
NSLOT_fo = 8
NSLOT_io = 4
NSLOT_uo = 1
NSLOT_fx = 1
NSLOT_do = 1
NSLOT_vo = 1

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = simt.grid(1)
    t = thread_idx.x
    x0 = fa[i % 64]
    v1 = ia[ia[t % 64] % 64]
    sh2 = simt.shared.array(64, simt.int32)
    sh2[t] = math.ceil(x0)
    simt.syncthreads()
    v3 = sh2[t % 64]
    sh5 = simt.shared.array(64, simt.float32)
    sh5[t] = float(v1) % 1000000.0
    simt.syncthreads()
    v6 = sh5[t % 64]
    simt.syncthreads()
    w9 = 0
    while w9 < simt.int32(simt.uint32(0)) % 6:
        w9 += 1
        v6 = float(v3) % 1000000.0
    v13 = float(math.floor(v6)) % 1000000.0
    fo[i * NSLOT_fo + 4] = v13
