"""`with` over user classes (__enter__/__exit__ inlined): the exit runs after the body, after a
`return` in it, and with the exception where the body raised; a true result of __exit__
suppresses it; nested managers leave in reverse order; a manager that tests `exc_type is
ValueError` over a body that may raise two classes sees each exception's own class. Every
thread ends normally."""

import numpy as np

import simt

from . import EXACT, Case


class Span:
    """Counts entries and exits in a row of `log`; swallows KeyError."""

    def __init__(self, log, row):
        self.log = log
        self.row = row

    def __enter__(self):
        self.log[self.row, 0] += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log[self.row, 1] += 1
        if exc_type is not None:
            self.log[self.row, 2] += 1
        return isinstance(exc, KeyError)


class Order:
    """Records the order of exits: 10 * (what was there) + its tag."""

    def __init__(self, out, i, tag):
        self.out = out
        self.i = i
        self.tag = tag

    def __enter__(self):
        return self.tag

    def __exit__(self, exc_type, exc, tb):
        self.out[self.i] = self.out[self.i] * 10 + self.tag
        return False


@simt.kernel
def managed(a, log, out, order):
    i = simt.grid(1)
    if i < len(out):
        try:
            with Order(order, i, 1), Order(order, i, 2) as tag:
                with Span(log, i):
                    if a[i] == 1:
                        raise KeyError("swallowed")
                    if a[i] == 2:
                        raise ValueError("passes")
                    if a[i] == 3:
                        return
                    out[i] = 5 + tag
                out[i] += 10
        except ValueError:
            out[i] = -1


class Quiet:
    """Suppresses ValueError by testing the class itself."""

    def __enter__(self):
        return 1

    def __exit__(self, exc_type, exc, tb):
        return exc_type is ValueError


@simt.kernel
def quiet_in_loop(a, out):
    i = simt.grid(1)
    if i < len(out):
        n = 0
        try:
            for j in range(3):
                with Quiet():
                    if a[i] + j == 4:
                        raise ValueError("suppressed")
                    if a[i] + j == 9:
                        raise KeyError("passes")
                    n += 1
        except KeyError:
            n = -n - 1
        out[i] = n


N = 8


def _make():
    a = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.int32)
    return a, np.zeros((N, 3), np.int32), np.zeros(N, np.int32), np.zeros(N, np.int32)


def _ref(a, log, out, order):
    log = np.zeros((N, 3), np.int32)
    log[:, 0] = log[:, 1] = 1
    log[:, 2] = (a == 1) | (a == 2)
    out = np.select([a == 0, a == 1, a == 2, a == 3], [17, 10, -1, 0]).astype(np.int32)
    order = np.full(N, 21, np.int32)  # the inner manager (2) leaves first
    return {1: log, 2: out, 3: order}


def _make_quiet():
    return np.array([0, 2, 3, 4, 7, 8, 9, 1], np.int32), np.zeros(N, np.int32)


def _ref_quiet(a, out):
    ref = []
    for v in a.tolist():
        n = 0
        try:
            for j in range(3):
                if v + j == 4:
                    continue  # suppressed: the rest of the body is skipped
                if v + j == 9:
                    raise KeyError("passes")
                n += 1
        except KeyError:
            n = -n - 1
        ref.append(n)
    return {1: np.array(ref, np.int32)}


CASES = [
    Case("with_managers", managed, _make, 1, N, _ref, EXACT),
    Case("with_exit_class", quiet_in_loop, _make_quiet, 1, N, _ref_quiet, EXACT),
]
