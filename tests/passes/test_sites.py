"""Error sites (`passes/sites.py`): `site_ops` names the ops `number_sites` numbers, without
numbering them (what the cpu runtime's cache looks a stored site up in)."""

from __future__ import annotations

import numpy as np

import simt
from simt.ir import copy_function, walk
from simt.passes.sites import SITE, number_sites, site_ops


def _two_arrays(a, b, n):  # noqa: ANN001, ANN202 - a kernel with several accesses and an assert
    i = simt.grid(1)
    assert n > 0
    if i < n:
        b[i] = a[i] + a[i + 1]


def test_site_ops_names_what_number_sites_numbers() -> None:
    fn, _ = simt.kernel(_two_arrays).specialised_ir(np.zeros(9), np.zeros(8), 8)
    fn.attrs.pop("bounds", None)
    before = copy_function(fn)
    named = site_ops(fn)
    assert [op.attrs for op in walk(fn.body)] == [op.attrs for op in walk(before.body)]
    numbered = number_sites(copy_function(fn))
    positions = {id(op): k for k, op in enumerate(walk(fn.body))}
    got = {n: positions[id(op)] for n, op in named.items()}
    want = {int(op.attrs[SITE]): k for k, op in enumerate(walk(numbered.body)) if SITE in op.attrs}
    assert got == want and len(got) >= 4, (got, want)
