# found by `python -m simt fuzz --seed 77 --count 1`: internal on sim (OverflowError of
# simt.uint32(-2147483648) folded), then shrunk; the helper's tuple return and the loop's
# int32 bound restored by hand (the shrinker had dropped them)
"""simt fuzz kernel, seed 77."""
import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 77, 'grid': 1, 'block': 32, 'fp64': False}
NSLOT_fo = 1
NSLOT_io = 4
NSLOT_uo = 3
NSLOT_fx = 2
NSLOT_do = 1

def helper0(p0, p1):
    v4 = True
    if not not v4:
        if simt.uint32(-2147483648) > 255:
            pass
        else:
            pass
    else:
        pass
    return p0, p1

def helper1(p0, p1):
    pass

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = 1
    j0 = ia[i]
    for k2 in range(2147483647, j0):
        v5, v6 = helper0(thread_idx.x, j0)
