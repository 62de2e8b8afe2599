# found by `python -m simt fuzz --seed 32256 --count 1 --oob --size 5`: wrong-error on sim, then shrunk
"""simt fuzz kernel, seed 32256."""
import cmath
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 32256, 'grid': 1, 'block': 32, 'fp64': True, 'extras': ['cz'], 'int64': True, 'oob': ['uo', 'slot_off_by_one']}
NSLOT_fo = 5
NSLOT_io = 2
NSLOT_uo = 1
NSLOT_fx = 3
NSLOT_do = 1
NSLOT_q64 = 3
NSLOT_cz = 6

@simt.kernel(fp64=True)
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1, da, do, cz):
    i = simt.grid(1)
    simt.syncthreads()
    uo[i * NSLOT_uo + NSLOT_uo] = simt.uint32(7)
    simt.syncthreads()
    z19 = 0.25j
    z21 = z19 + simt.float32(0.5)
    cz[64 + i * NSLOT_cz + 2] = z21
