"""examples/repl_session.txt is what the REPL prints (issue 26 item 3): the transcript is
produced by examples/make_repl_session.py, which feeds the typed lines to the REPL's own read
loop; this test runs it again and compares."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from spawn_env import pythonpath

ROOT = Path(__file__).resolve().parents[2]


def test_the_transcript_is_what_the_repl_prints() -> None:
    env = dict(os.environ, PYTHONPATH=pythonpath())
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_repl_session.py"), "--check"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, (
        "examples/repl_session.txt differs from a run of the REPL; regenerate it with "
        f"`python examples/make_repl_session.py`:\n{p.stdout}{p.stderr}"
    )
