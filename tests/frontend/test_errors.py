"""Every CompileError names the user's file and line, shows the line with a caret, and says
what to write instead; launch and kernel errors name the value or the thread."""

import numpy as np
import pytest

import simt
from simt import thread_idx

HERE = __file__


@pytest.fixture(autouse=True)
def _sim():
    simt.use("sim")


def _compile_error(k, *args):
    with pytest.raises(simt.CompileError) as info:
        k[1, 4](*args)
    e = info.value
    assert e.filename == HERE
    assert e.source_line
    text = str(e)
    assert f"{HERE}:{e.line}" in text
    assert "^" in text
    return e


def test_a_dict_mixing_string_and_number_keys_is_rejected_with_location():
    @simt.kernel
    def k(a):
        d = {"x": 1}  # string keys (#27): a number key may not join them
        d[2] = 3  # the offending line
        a[0] = d["x"]

    e = _compile_error(k, np.zeros(4, np.float32))
    assert "keys are strings" in e.message and "would mix them" in e.message
    assert "d[2] = 3" in e.source_line
    assert e.hint and "number keys in a dict of their own" in e.hint


def _user_kernel_error(tmp_path, header: str, body: str) -> simt.CompileError:
    """The CompileError of `def k(a): <body>` written after `header` in a user's file."""
    src = (f"{header}\n\n@simt.kernel\ndef k(a):\n        {body}\n").replace("\n        ", "\n    ")
    path = tmp_path / "user_kernel.py"
    path.write_text(src)
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    with pytest.raises(simt.CompileError) as info:
        ns["k"][1, 4](np.zeros(4, np.float32))
    assert info.value.filename == str(path)
    return info.value


@pytest.mark.parametrize(
    "body, words",
    [
        ("try:\n            a[0] = 1.0\n        except* Exception:\n            pass", "except*"),
        ("raise ValueError(thread_idx.x)", "known at compile time"),
        ("with open(f'x{thread_idx.x}', 'rb') as f:\n            pass", "binary mode"),
        ("class C:\n            pass", "class"),
        ("s = 'text'\n        a[0] = s[thread_idx.x]", "run-time value"),
        ("xs = []\n        xs.append(thread_idx.x)\n        xs.append(0.5)", "mix types"),
        ("def g():\n            return g()\n        g()", "recursion is not supported"),
        ("a[0:2] = 1.0", "to a slice or a whole row is not supported"),
        ("y = undefined_name + 1", "not defined"),
        ("return 5", "returns nothing"),
        ("a[0.5] = 1.0", "integers"),
    ],
)
def test_constructs_outside_the_language(tmp_path, body, words):
    e = _user_kernel_error(tmp_path, "import simt\nfrom simt import thread_idx", body)
    assert e.line is not None and e.line >= 6
    if words:
        assert words in str(e)


@pytest.mark.parametrize(
    "body, words, hint",
    [  # mistakes met porting Numba programs: each ran silently wrong or was an internal error
        ("a[0] = random.random()", "random.random() would run once, at compile time", "xoroshiro"),
        ("a[0] = np.random.rand()", "np.random.rand() would run once", "on the host"),
        ("simt.syncthreads\n        a[0] = 1.0", "names a function without calling it",
         "simt.syncthreads()"),
        ("for j in range(len(a) / 2):\n            a[j] = 1.0", "range() bounds must be integers",
         "`//`"),
        ("for j in range(1, len(a) * 0.5):\n            a[j] = 1.0",
         "range() bounds must be integers", "int(...)"),
    ],
)  # fmt: skip
def test_silent_or_internal_mistakes_are_located_errors(tmp_path, body, words, hint):
    e = _user_kernel_error(tmp_path, "import random\nimport numpy as np\nimport simt", body)
    assert e.line == 7
    assert words in str(e) and e.hint and hint in e.hint


def test_runtime_value_to_an_uncompilable_callable():
    import statistics

    @simt.kernel
    def k(a):
        a[0] = statistics.mean((thread_idx.x, 1))

    e = _compile_error(k, np.zeros(4, np.float32))
    assert "statistics" in e.message and "run time" in e.message


def test_recursion_is_a_compile_error():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    @simt.kernel
    def k(a):
        a[thread_idx.x] = fact(thread_idx.x)

    e = _compile_error(k, np.zeros(4, np.float32))
    assert "recursion" in e.message


def test_barrier_only_some_threads_reach_is_a_kernel_error_at_its_line_on_sim():
    @simt.kernel
    def k(a):
        if thread_idx.x < 2:
            simt.syncthreads()
        a[thread_idx.x] = 1.0

    simt.use("sim")
    with pytest.raises(simt.KernelError) as info:
        k[1, 4](np.zeros(4, np.float32))
    e = info.value
    assert e.filename == HERE and "syncthreads" in e.source_line
    assert "reach different barriers" in str(e)


def test_variable_defined_only_in_a_runtime_loop():
    @simt.kernel
    def k(a):
        for i in range(thread_idx.x):
            t = i * 2
        a[0] = t

    e = _compile_error(k, np.zeros(4, np.float32))
    assert "may be undefined" in e.message


def test_errors_do_not_show_simt_internals():
    @simt.kernel
    def k(a):
        a[0] = {1: 2}

    with pytest.raises(simt.CompileError) as info:
        k[1, 1](np.zeros(1, np.float32))
    frames = [str(f.path) for f in info.traceback]
    assert all("simt/frontend" not in f and "simt/ir" not in f for f in frames), frames


@pytest.mark.parametrize(
    "grid, block, words",
    [(1, 2048, "1024"), (0, 32, "positive"), (-1, 32, "positive"), ("x", 32, "int")],
)
def test_bad_launch_shapes(grid, block, words):
    @simt.kernel
    def k(a):
        a[0] = 1.0

    with pytest.raises(simt.LaunchError) as info:
        k[grid, block](np.zeros(1, np.float32))
    assert words in str(info.value)


def test_wrong_number_of_arguments():
    @simt.kernel
    def k(a, b):
        a[0] = b[0]

    with pytest.raises(simt.LaunchError, match=r"takes 2 argument\(s\) \(a, b\), got 1: 'b'"):
        k[1, 1](np.zeros(1, np.float32))


def test_unsupported_dtype_names_the_argument():
    @simt.kernel
    def k(a):
        a[0] = 1

    with pytest.raises(simt.LaunchError, match="'a'.*float128.*astype"):
        k[1, 1](np.zeros(1, np.longdouble))


def test_calling_a_kernel_directly_says_how_to_launch():
    @simt.kernel
    def k(a):
        a[0] = 1

    with pytest.raises(simt.LaunchError, match=r"k\[blocks, threads\]"):
        k(np.zeros(1, np.float32))


def test_out_of_bounds_is_a_kernel_error_with_thread_and_line():
    @simt.kernel
    def k(a):
        i = simt.grid(1)
        a[i + 1] = 1.0  # thread 3 of block 1 writes past the end

    with pytest.raises(simt.KernelError) as info:
        k[2, 4](np.zeros(8, np.float32))
    e = info.value
    assert e.block == (1, 0, 0) and e.thread == (3, 0, 0)
    assert e.filename == HERE and "a[i + 1] = 1.0" in e.source_line


def test_failed_assert_is_a_kernel_error_with_message():
    @simt.kernel
    def k(a):
        i = simt.grid(1)
        assert a[i] >= 0.0, "negative input"

    a = np.ones(8, np.float32)
    a[5] = -1.0
    with pytest.raises(simt.KernelError, match="negative input") as info:
        k[2, 4](a)
    assert info.value.block == (1, 0, 0) and info.value.thread == (1, 0, 0)


def test_no_source_is_a_clear_error():
    ns: dict = {}
    exec("def k(a):\n    a[0] = 1\n", ns)
    k = simt.kernel(ns["k"])
    with pytest.raises(simt.CompileError, match="cannot read the source"):
        k[1, 1](np.zeros(1, np.float32))


COUNT = 3


def test_a_local_read_before_assignment_is_not_the_global():
    @simt.kernel
    def k(a):
        while COUNT < 10:  # noqa: F823 - the error this test is about
            COUNT = COUNT + 1
        a[0] = COUNT

    e = _compile_error(k, np.zeros(4, np.float32))
    assert "local variable" in e.message


class _Point:
    def __init__(self, x):
        self.x = x


def test_printing_an_object_of_the_users_class_advises_its_fields():
    @simt.kernel
    def k(out):
        p = _Point(thread_idx.x)
        print(p)

    with pytest.raises(simt.CompileError, match=r"print its fields \(print\(p.x, p.y\)\)"):
        k.ir(np.zeros(1, np.int32))
