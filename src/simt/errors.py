"""The three errors a user sees: compile, launch and kernel errors.

Every message names the user's own file and line where there is one, shows the source line
with a caret under the construct, and says what to write instead. Nothing from inside simt's
own code is shown: `__suppress_context__` hides the chain and the traceback is cut to the
user's frame by `simt.kernel` before it is raised.
"""

from __future__ import annotations


class SimtError(Exception):
    """Base class of simt's errors."""


class CompileError(SimtError):
    """The kernel uses something outside the kernel language, or its types do not fit."""

    def __init__(
        self,
        message: str,
        filename: str | None = None,
        line: int | None = None,
        col: int | None = None,
        source_line: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.filename is not None and self.line is not None:
            where = f"{self.filename}:{self.line}"
            if self.col is not None:
                where += f":{self.col + 1}"
            parts.append(f"{where}: {self.message}")
        else:
            parts.append(self.message)
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            parts.append("    " + stripped)
            if self.col is not None and self.col >= indent:
                parts.append("    " + " " * (self.col - indent) + "^")
        if self.hint:
            parts.append(f"  {self.hint}")
        return "\n".join(parts)


class LaunchError(SimtError):
    """A launch that cannot run: a bad grid or block, wrong arguments."""


class KernelError(SimtError):
    """A failure inside a running kernel: out-of-bounds access, failed assert.

    Carries the block and thread index of the first failing thread and the source location.
    """

    def __init__(
        self,
        message: str,
        block: tuple[int, int, int] | None = None,
        thread: tuple[int, int, int] | None = None,
        filename: str | None = None,
        line: int | None = None,
        source_line: str | None = None,
    ) -> None:
        self.block = block
        self.thread = thread
        self.filename = filename
        self.line = line
        self.source_line = source_line
        text = message
        if block is not None and thread is not None:
            text += f" (block {block}, thread {thread})"
        if filename is not None and line is not None:
            text = f"{filename}:{line}: {text}"
        if source_line:
            text += "\n    " + source_line.strip()
        self.message = message
        super().__init__(text)


class BackendUnavailable(SimtError):
    """The backend asked for is not installed or has no device here; the message says why."""
