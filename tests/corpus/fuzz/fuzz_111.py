# found by `python -m simt fuzz --seed 111 --count 1`: rejected on sim, then shrunk
"""simt fuzz kernel, seed 111."""
import cmath
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 111, 'grid': 2, 'block': 64, 'fp64': False, 'extras': []}
NSLOT_fo = 10
NSLOT_io = 11
NSLOT_uo = 2
NSLOT_fx = 4
NSLOT_do = 1
NSLOT_q64 = 3
NSLOT_hf = 2
NSLOT_b8 = 2
NSLOT_vo = 1
NSLOT_cz = 5

def helper0(p0, p1):
    v6 = float(math.floor(p1)) % 1000000.0
    return (float(p0) % 1000000.0, v6 % 1000000.0)

def helper1(p0, p1, p2):
    return (7, 1)

def helper2(p0, p1):
    v23 = simt.float32(simt.uint32(7)) % 1000000.0
    return (block_idx.x, v23 % 1000000.0)

def vhelper36(v, p0):
    acc = p0
    return (acc, len(v))

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    v46 = -2j
