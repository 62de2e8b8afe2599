# found by `python -m simt fuzz --seed 4000 --count 1`: rejected on sim, then shrunk
"""simt fuzz kernel, seed 4000."""
import cmath
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 4000, 'grid': 3, 'block': 64, 'fp64': False, 'extras': ['cz']}
NSLOT_fo = 4
NSLOT_io = 3
NSLOT_uo = 1
NSLOT_fx = 4
NSLOT_do = 1
NSLOT_cz = 2

def chelper12(p0, p1):
    if p0.real > p1.imag:
        return (p1, p0.imag)
    return (p1, p1.real)

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1, cz):
    i = simt.grid(1)
    t = thread_idx.x
    sh1 = simt.shared.array(64, simt.int32)
    sh1[t] = simt.int32(simt.uint32(31))
    simt.syncthreads()
    v2 = sh1[t % 64]
    simt.syncthreads()
    z14, v15 = chelper12(cz[v2 % 64], 1j)
    cz[64 + i * NSLOT_cz + 1] = z14
