# found by `python -m simt fuzz --seed 121 --count 1`: rejected on sim, then shrunk
"""simt fuzz kernel, seed 121."""
import cmath
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 121, 'grid': 3, 'block': 64, 'fp64': True, 'extras': []}
NSLOT_fo = 7
NSLOT_io = 7
NSLOT_uo = 1
NSLOT_fx = 3
NSLOT_do = 1
NSLOT_q64 = 4
NSLOT_b8 = 2
NSLOT_uh16 = 2
NSLOT_vo = 2
NSLOT_cw = 2
NSLOT_cz = 2

def helper0(p0):
    return (float(math.floor(1.0)) % 1000000.0, True)

def helper1(p0, p1):
    return (float(thread_idx.x) % 1000000.0, True)

def helper2(p0, p1, p2):
    return (3, simt.uint32(2147483648))

def vhelper38(v, p0):
    acc = p0
    return (acc, len(v))

@simt.kernel(fp64=True)
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1, da, do):
    i = simt.grid(1)
    x0 = fa[i % 64]
    v1 = x0
    v2 = v1
    v12, v13 = helper1(v1, v2)
    if complex(v12, v12) != 1.5:
        pass
    else:
        pass
