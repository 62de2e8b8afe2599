# found by `python -m simt fuzz --seed 124 --count 1`: rejected on sim, then shrunk
"""simt fuzz kernel, seed 124."""
import cmath
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 124, 'grid': 1, 'block': 32, 'fp64': False, 'extras': []}
NSLOT_fo = 7
NSLOT_io = 6
NSLOT_uo = 1
NSLOT_fx = 3
NSLOT_do = 1
NSLOT_uh16 = 2
NSLOT_vo = 1
NSLOT_cz = 4

def helper0(p0, p1):
    return (float(block_idx.x) % 1000000.0, float(math.floor(0.5)) % 1000000.0)

def helper1(p0, p1, p2):
    v14 = float(math.floor(float(math.floor(float(p1))))) % 1000000.0
    return (float(8) % 1000000.0, v14)

def helper2(p0):
    return (31, block_idx.x)

def vhelper37(v, p0):
    acc = p0
    return (acc, len(v))

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    v20 = simt.float32(s1) % 1000000.0
    z24 = complex(3.0, v20) if s0 > 0 else 3
    z25 = z24
