"""Exceptions per thread: `raise` of built-in and user classes, `try`/`except` by class and by
tuple, `as e` printed, `else`, `finally`, a raise inside a helper and inside a loop, an index
out of bounds caught as IndexError, a failed assert caught as AssertionError,
ZeroDivisionError under `division="python"`; a `try` in a loop body whose raise is
conditional, and one helper that raises called from two `try` statements (the loop is
translated twice and the helper inlined twice: both reuse their raise sites). Every thread
catches what it raises, so the launch succeeds and the outputs and the printed text are
compared."""

import numpy as np

import simt

from . import EXACT, Case


class Overflow(Exception):
    """A user exception class with an attribute of its own."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def scaled(v, limit):
    if v > limit:
        raise Overflow("above the limit", 7)
    return v * 2


@simt.kernel(division="python")
def guarded(a, d, out):
    i = simt.grid(1)
    if i < len(out):
        try:
            x = scaled(a[i], 50)
            y = x // d[i]
            z = a[i * 3]
            assert y != 4, "four"
        except (ZeroDivisionError, IndexError) as e:
            print(i, "caught", e)
            out[i] = -1
        except Overflow as e:
            print(i, "overflow", e.code, repr(e))
            out[i] = e.code
        except AssertionError:
            out[i] = -4
        else:
            out[i] = y + z
        finally:
            out[i] += 1000


@simt.kernel
def first_negative(a, out):
    """A raise inside a run-time loop leaves the loop; the handler sees where it stopped."""
    i = simt.grid(1)
    if i < len(out):
        k = 0
        try:
            while k < a.shape[1]:
                if a[i, k] < 0:
                    raise ValueError("negative")
                k += 1
            out[i] = -1
        except ValueError:
            out[i] = k


def halve_even(v):
    if v % 2 != 0:
        raise ValueError("odd")
    return v // 2


@simt.kernel
def caught_in_loops(a, out):
    """Each row's negatives counted by a `try` inside the loop; then `halve_even` twice, each
    call in its own `try`."""
    i = simt.grid(1)
    if i < len(out):
        bad = 0
        for k in range(a.shape[1]):
            try:
                if a[i, k] < 0:
                    raise ValueError("negative")
            except ValueError:
                bad += 1
        r = 0
        try:
            r = halve_even(a[i, 0])
        except ValueError:
            r = -100
        try:
            r += halve_even(a[i, 1])
        except ValueError:
            r += 1000
        out[i] = bad + 10 * r


N = 12


def _make():
    a = np.array([1, 60, 3, 4, 5, 2, 7, 8, 9, 10, 70, 12], np.int32)
    d = np.array([1, 1, 0, 2, 1, 1, 1, 2, 3, 0, 1, 1], np.int32)
    return a, d, np.zeros(N, np.int32)


def _outcome(a, d):
    """(out value, printed line or None) per thread, by Python's own rules."""
    rows = []
    for i in range(N):
        try:
            x = int(a[i]) * 2 if a[i] <= 50 else None
            if x is None:
                rows.append((7 + 1000, f"{i} overflow 7 Overflow('above the limit')\n"))
                continue
            y = x // int(d[i])
            if i * 3 >= N:
                raise IndexError(f"index {i * 3} is out of bounds of `a` with size {N}")
            z = int(a[i * 3])
            if y == 4:
                rows.append((-4 + 1000, None))
                continue
            rows.append((y + z + 1000, None))
        except ZeroDivisionError:
            rows.append((-1 + 1000, f"{i} caught integer division or modulo by zero\n"))
        except IndexError as e:
            rows.append((-1 + 1000, f"{i} caught {e}\n"))
    return rows


def _ref(a, d, out):
    return {2: np.array([r[0] for r in _outcome(a, d)], np.int32)}


def _text(a, d, out):
    return "".join(r[1] for r in _outcome(a, d) if r[1])


def _make_rows():
    a = np.array([[1, 2, -3, 4], [5, 6, 7, 8], [-1, 0, 0, 0], [2, 2, 2, -9]], np.int32)
    return a, np.zeros(4, np.int32)


def _ref_rows(a, out):
    firsts = [next((k for k, v in enumerate(row) if v < 0), -1) for row in a]
    return {1: np.array(firsts, np.int32)}


def _ref_loops(a, out):
    ref = []
    for row in a.tolist():
        bad = sum(v < 0 for v in row)
        r = row[0] // 2 if row[0] % 2 == 0 else -100
        r += row[1] // 2 if row[1] % 2 == 0 else 1000
        ref.append(bad + 10 * r)
    return {1: np.array(ref, np.int32)}


def picky(t, v):
    if v % 5 == 0:
        raise ValueError(f"t{t}: {v} ends in 0 or 5")
    if v % 7 == 0:
        raise ValueError("a multiple of seven")
    return v


@simt.kernel(division="python")
def messages(a, out):
    """`str(e)` of an exception the `try` may raise at several places (two `raise`s, one of
    a message built at run time, a list index, a division, array stores): the thread's
    message is a string of its own."""
    t = simt.grid(1)
    if t < len(a):
        xs = [1, 2, 3]
        try:
            out[0, t] = picky(t, a[t])
            out[1, t] = xs[a[t] % 5]
            out[2, t] = 100 // (a[t] % 4)
        except (ValueError, IndexError, ZeroDivisionError) as e:
            m = str(e)
            out[3, t] = len(m) * 10 + (1 if m.endswith("0 or 5") else 0)
            if t % 3 == 0:
                print(t, "[" + m + "]")


def _messages(a):
    """(out, printed) of `messages` by Python's rules."""
    out = np.zeros((4, len(a)), np.int32)
    printed = []
    for t, v in enumerate(a.tolist()):
        xs = [1, 2, 3]
        try:
            out[0, t] = picky(t, v)
            out[1, t] = xs[v % 5]
            out[2, t] = 100 // (v % 4)
        except (ValueError, IndexError, ZeroDivisionError) as e:
            m = str(e)
            out[3, t] = len(m) * 10 + (1 if m.endswith("0 or 5") else 0)
            if t % 3 == 0:
                printed.append(f"{t} [{m}]\n")
    return out, "".join(printed)


def _make_messages():
    return np.array([1, 10, 7, 6, 4, 13, 25, 9, 21, 2, 8, 35, 11, 14, 3, 12], np.int32), \
        np.zeros((4, 16), np.int32)  # fmt: skip


CASES = [
    Case("exceptions", guarded, _make, 1, 16, _ref, EXACT, stdout=_text),
    Case("exceptions_messages", messages, _make_messages, 1, 16,
         lambda a, out: {1: _messages(a)[0]}, EXACT,
         stdout=lambda a, out: _messages(a)[1]),  # fmt: skip
    Case("exceptions_loop", first_negative, _make_rows, 1, 4, _ref_rows, EXACT),
    Case("exceptions_reused_sites", caught_in_loops, _make_rows, 1, 4, _ref_loops, EXACT),
]
