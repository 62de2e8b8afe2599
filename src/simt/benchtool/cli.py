"""`simt bench` and `simt calibrate`."""

from __future__ import annotations

import argparse
import sys


def calibrate_main(argv: list[str]) -> int:
    """`simt calibrate [--backend NAME] [--quick]`: measure the device, store its profile."""
    from ..errors import SimtError
    from ..runtime import registry
    from .calibrate import calibrate
    from .profile import profile_path

    ap = argparse.ArgumentParser(
        prog="simt calibrate",
        description="measure copy bandwidth, peak float32, launch "
        "overhead and far-access rate of a device; store its profile",
    )
    ap.add_argument(
        "--backend", action="append", help="backend(s) to calibrate (default: the current one)"
    )
    ap.add_argument("--quick", action="store_true", help="smaller, faster measurements")
    args = ap.parse_args(argv)
    names = args.backend or [registry.current().name]
    rc = 0
    for name in names:
        ok, why = registry.probe(name)
        if not ok:
            print(f"simt calibrate: backend {name!r} is not available: {why}", file=sys.stderr)
            rc = 1
            continue
        print(f"calibrating {name} ...")
        try:
            prof = calibrate(name, quick=args.quick, log=lambda m: print("  " + m))
        except SimtError as e:
            print(f"simt calibrate: {e}", file=sys.stderr)
            rc = 1
            continue
        print(f"  stored {profile_path(prof.backend, prof.device)}")
    return rc


def bench_main(argv: list[str]) -> int:
    """`simt bench`: see `simt bench --help`."""
    from .suite_cli import run

    return run(argv)
