# found by `python -m simt fuzz --seed 41 --count 1`: mismatch on webgpu
"""simt fuzz kernel, seed 41."""
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 41, 'grid': 2, 'block': 32, 'fp64': False}
NSLOT_fo = 3
NSLOT_io = 3
NSLOT_uo = 1
NSLOT_fx = 1
NSLOT_do = 1

def helper0(p0, p1, p2):
    la1 = simt.local.array(8, simt.int32)
    la1[thread_idx.x % 8] = thread_idx.x
    v3 = la1[thread_idx.x % 8]
    la4 = simt.local.array(8, simt.float32)
    for q5 in range(8):
        la4[q5] = p0
    v6 = la4[3]
    return (2147483648, (v6 - float(v3) + -7.75 % -0.001) % 1000000.0)

def helper1(p0):
    pass

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = simt.grid(1)
    x0 = fa[i % 64]
    u0 = ua[i % 64]
    v10, v11 = helper0((float(i) + x0) % 1000000.0, -x0, simt.uint32(3) | u0)
    fo[i * NSLOT_fo + 2] = v11
