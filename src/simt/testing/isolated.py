"""Kernels checked in a child process: a backend that crashes the process (a segfault, an
abort, a heap corruption) or hangs is a finding of that kernel, not the end of a campaign.

`Child` keeps one worker process (`python -m simt.testing.isolated`) and sends it one kernel
a line (seed and generator options as JSON); the worker answers each with one JSON line of
findings, refusals and features. When the worker dies before answering, the kernel gets a
`crash` finding with the worker's exit status and the end of its error output; when it does
not answer within `hang_seconds`, a `hang` finding; either way a fresh worker takes the next
kernel. Kernels that pass cost no process start: one worker runs them all.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any

from .differential import Finding, check
from .generator import generate


def _finding(d: dict[str, Any]) -> Finding:
    return Finding(int(d["seed"]), str(d["backend"]), str(d["kind"]), str(d["detail"]))


class Child:
    """One worker process at a time, restarted after a crash or a hang."""

    def __init__(
        self, backends: tuple[str, ...], nvrtc: bool, hang_seconds: float,
        command: tuple[str, ...] = (sys.executable, "-m", "simt.testing.isolated"),
    ) -> None:  # fmt: skip
        self.backends = backends
        self.nvrtc = nvrtc
        self.hang_seconds = hang_seconds
        self.command = command  # the worker (tests give one that crashes)
        self.proc: subprocess.Popen[bytes] | None = None
        self.err: Any = None

    def _start(self) -> subprocess.Popen[bytes]:
        self.err = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            list(self.command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            env=dict(os.environ, PYTHONFAULTHANDLER="1"),
        )  # fmt: skip
        return self.proc

    def check(
        self, seed: int, options: dict[str, Any], refused: list[Finding]
    ) -> tuple[list[Finding], list[str]]:
        """The findings of kernel `seed` and its features (as `differential.check` gives)."""
        proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
        assert proc.stdin is not None and proc.stdout is not None
        ask = {"seed": seed, "options": options, "backends": self.backends, "nvrtc": self.nvrtc}
        try:
            proc.stdin.write((json.dumps(ask) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._answer(proc)
        if not line:
            return [self._lost(seed, proc, hung=line is None)], []
        got = json.loads(line)
        refused += [_finding(d) for d in got["refused"]]
        return [_finding(d) for d in got["found"]], list(got["features"])

    def _answer(self, proc: subprocess.Popen[bytes]) -> bytes | None:
        """The worker's answer line; b"" when it died first, None when it did not answer in
        time."""
        assert proc.stdout is not None
        end = time.monotonic() + self.hang_seconds
        fd = proc.stdout.fileno()
        buf = b""
        while not buf.endswith(b"\n"):
            left = end - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                return None  # a hang
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b""  # the worker died
            buf += chunk
        return buf

    def _lost(self, seed: int, proc: subprocess.Popen[bytes], hung: bool) -> Finding:
        """The finding of a kernel whose worker crashed or hung; the worker is ended."""
        if hung:
            if hasattr(signal, "SIGUSR1"):  # the worker's threads' tracebacks, then the end
                proc.send_signal(signal.SIGUSR1)
                time.sleep(2)
            proc.kill()
        code = proc.wait()
        tail = ""
        if self.err is not None:
            self.err.seek(0)
            tail = self.err.read().decode("utf-8", "replace")[-1500:]
            self.err.close()
        self.proc = None
        if hung:
            return Finding(seed, "any", "hang", f"no answer within {self.hang_seconds:g} s\n{tail}")
        return Finding(seed, "any", "crash", f"the process ended with status {code}\n{tail}")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


def _serve() -> None:
    """The worker: one JSON request a line on stdin, one JSON answer a line on stdout."""
    out = sys.stdout
    sys.stdout = sys.stderr  # kernels' prints are captured by `check`; nothing else on out
    if hasattr(signal, "SIGUSR1"):  # a hang: where each thread is, for the finding
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    warnings.simplefilter("ignore")  # NumPy overflow warnings of wrapping int32 code
    for line in sys.stdin:
        ask = json.loads(line)
        program = generate(int(ask["seed"]), **ask["options"])
        refused: list[Finding] = []
        found = check(program, tuple(ask["backends"]), bool(ask["nvrtc"]), refused)
        answer = {
            "found": [vars(f) for f in found],
            "refused": [vars(f) for f in refused],
            "features": sorted(program.features),
        }
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    _serve()
