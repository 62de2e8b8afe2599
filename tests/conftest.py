"""Test-wide settings: an isolated compile cache, and every test's backend choice undone."""

import os
import signal
import tempfile
from collections.abc import Iterator

os.environ.setdefault("SIMT_CACHE_DIR", tempfile.mkdtemp(prefix="simt-test-cache-"))
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="simt-xdg-"))
# prints are written when a launch ends (thread-major), however slow a loaded machine makes
# it: streaming (a launch running longer than 0.5 s) is tested where it is asked for
os.environ.setdefault("SIMT_STREAM_PRINT", "off")
# launch advice (a SimtPerformanceWarning once per kernel) is tested where it is asked for
os.environ.setdefault("SIMT_ADVICE", "off")
# A suite started as a background job of a non-interactive shell (`... &`) inherits SIGINT
# ignored, and so would every REPL it starts: the Ctrl-C tests need Python's own handler
# (with SIGINT ignored they failed, and one waited for ever for its KeyboardInterrupt).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

import pytest  # noqa: E402 - after the environment it reads

import simt  # noqa: E402


@pytest.fixture(autouse=True)
def restore_backend() -> Iterator[None]:
    """A test may `simt.use` any backend: the one chosen before it is chosen again after it
    (`simt.using`, the public way), so no test sees another's choice."""
    with simt.using(simt.backend()):
        yield


@pytest.fixture
def ordinary(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item for each launch that took the ordinary path (`Kernel.launch`), not a native
    fast path."""
    from simt.kernel import Kernel

    calls: list[int] = []
    real = Kernel.launch

    def counted(self: Kernel, *a: object) -> None:
        calls.append(1)
        real(self, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(Kernel, "launch", counted)
    return calls


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): a worker a core, at most eight. Each worker compiles
    and keeps its own kernels (a few GB by the end of a whole run), and the fuzz slice
    shares the cores it is given among worker processes of its own (test_fuzz_slice.py)."""
    return max(1, min(8, os.cpu_count() or 1))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `slow` (minutes each) dealt out first. pytest-xdist's `worksteal` gives
    worker j the j-th of equal parts of this list, and an idle worker steals from the end of
    another's part: so each part starts with its share of the slow tests (round robin), and
    its short tests after them even out the end. (All slow tests first in one list gave them
    all to the first worker: the critical path of a whole run.)"""
    parts = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    rest = [item for item in items if item.get_closest_marker("slow") is None]
    dealt: list[pytest.Item] = []
    for j in range(parts):
        size = len(items) * (j + 1) // parts - len(items) * j // parts
        mine = slow[j::parts]
        take = max(0, size - len(mine))
        dealt += mine + rest[:take]
        rest = rest[take:]
    items[:] = dealt + rest


def _backends() -> list[tuple[str, bool, str]]:
    """Each backend (and NVRTC, which checks cuda without a GPU): present, and why."""
    from simt.runtime import nvrtc, registry

    out = [(name, *registry.probe(name)) for name in registry.RUNTIMES]
    version = nvrtc.version()
    out.append(("nvrtc", version is not None, f"NVRTC {version}" if version else "not installed"))
    return out


def pytest_report_header(config: object) -> list[str]:
    """Say at the top of every run which backends the tests ran on (none skipped silently)."""
    lines = []
    for name, ok, why in _backends():
        lines.append(f"simt backend {name}: {'runs' if ok else 'SKIPPED'} ({why})")
    return lines


def pytest_sessionstart(session: object) -> None:
    """`SIMT_REQUIRE_BACKENDS=sim,cpu,webgpu,nvrtc` (CI) makes a missing one an error."""
    required = [n for n in os.environ.get("SIMT_REQUIRE_BACKENDS", "").split(",") if n]
    missing = [f"{n} ({why})" for n, ok, why in _backends() if n in required and not ok]
    if missing:
        raise pytest.UsageError(f"required simt backends are missing: {', '.join(missing)}")


def pytest_terminal_summary(terminalreporter: object) -> None:
    """The same at the end, where `-q` (the README's command) still shows it."""
    parts = [f"{n} {'ran' if ok else 'SKIPPED: ' + why}" for n, ok, why in _backends()]
    terminalreporter.write_line("simt backends: " + "; ".join(parts))  # type: ignore[attr-defined]
