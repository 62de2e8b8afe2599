"""The terminal front: reading inputs (prompt_toolkit when present on a terminal, else plain
`input()`), `...` continuation of blocks, colours through rich, Ctrl-C and Ctrl-D."""

from __future__ import annotations

import argparse
import codeop
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import SimtError
from . import commands
from .session import Session


class PlainSink:
    """Writes everything as plain text (pipes, dumb terminals, tests); errors to the same
    stream so that the order is kept."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    @property
    def stream(self) -> TextIO:
        """The stream given, else `sys.stdout` as it is now (Jupyter swaps it per cell)."""
        return self._stream if self._stream is not None else sys.stdout

    def text(self, s: str) -> None:
        self.stream.write(s)
        self.stream.flush()

    def banner(self, s: str) -> None:
        self.text(s + "\n")

    def warning(self, s: str) -> None:
        self.text(s + "\n")

    def error(self, s: str) -> None:
        self.text(s + "\n")


class RichSink(PlainSink):
    """Banners, warnings and errors in colour through rich; plain text as it is."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console

        self.console = Console(highlight=False, soft_wrap=True)

    def _styled(self, s: str, style: str) -> None:
        from rich.text import Text

        self.console.print(Text(s, style=style))

    def banner(self, s: str) -> None:
        self._styled(s, "bold cyan")

    def warning(self, s: str) -> None:
        self._styled(s, "yellow")

    def error(self, s: str) -> None:
        self._styled(s, "red")


def _fancy() -> bool:
    """Whether to use prompt_toolkit and rich: on a real terminal, unless told otherwise."""
    if os.environ.get("SIMT_REPL_PLAIN") == "1" or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


def _reader(fancy: bool) -> Callable[[str], str]:
    """A function that shows a prompt and returns the line typed (EOFError at the end)."""
    if fancy:
        try:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import FileHistory, InMemoryHistory

            history: Any
            try:
                history = FileHistory(os.path.expanduser("~/.simt_repl_history"))
            except OSError:
                history = InMemoryHistory()
            ps: Any = PromptSession(history=history)
            return lambda prompt: str(ps.prompt(prompt))
        except ImportError:
            pass
    try:
        import readline  # noqa: F401 - line editing and history for input()
    except ImportError:
        pass
    return input


def _complete(source: str) -> bool:
    """Whether `source` is a whole input (a block needs its closing empty line)."""
    try:
        return codeop.compile_command(source, "<input>", "single") is not None
    except (SyntaxError, ValueError, OverflowError):
        return True  # let the session show the error


def loop(session: Session, read: Callable[[str], str]) -> None:
    """Read, run, repeat until end of input or `exit()`."""
    while True:
        lines: list[str] = []
        try:
            while True:
                line = read(">>> " if not lines else "... ")
                if not lines and line.lstrip().startswith("%"):
                    commands.run(session, line.strip())
                    break
                lines.append(line)
                source = "\n".join(lines)
                if not lines[0].strip():
                    lines = []
                    continue
                if _complete(source):
                    session.run(source)
                    break
        except KeyboardInterrupt:
            session.out.error("\nKeyboardInterrupt")
        except EOFError:
            session.out.text("\n")
            return
        except SystemExit:
            return


def main(argv: list[str] | None = None) -> int:
    """`simt repl [--threads N] [--backend B]`: the REPL; returns the exit status."""
    p = argparse.ArgumentParser(prog="simt repl", description="Every input runs on every thread.")
    p.add_argument("--threads", type=int, default=1 << 20, help="number of threads (2**20)")
    p.add_argument("--backend", default=None, help="cpu, sim, cuda or webgpu (the best present)")
    args = p.parse_args(argv)
    if args.threads < 1 or args.threads >= 2**31:
        print("simt repl: --threads must be between 1 and 2**31 - 1", file=sys.stderr)
        return 2
    fancy = _fancy()
    sink: PlainSink = PlainSink()
    if fancy:
        try:
            sink = RichSink()
        except ImportError:
            pass
    try:
        session = Session(sink, threads=args.threads, backend=args.backend)
    except SimtError as e:
        print(f"simt repl: {e}", file=sys.stderr)
        return 2
    from .. import __version__

    sink.warning(
        f"simt {__version__} REPL: {args.threads:,} threads on {session.backend}. "
        "`tid` is each thread's index, `nthreads` their number; %help for more."
    )
    loop(session, _reader(fancy))
    return 0
