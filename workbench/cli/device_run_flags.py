"""The flags of the commands that run on the emulated device (`gewb exec`, `gewb devrun`): what
the run is watched with, not what GE builds (those are ge_option_flags')."""
from __future__ import annotations

import argparse


def add_device_run_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trace", metavar="OUT.json",
                   help="write the device timeline as Chrome Trace Event JSON (Perfetto)")
    p.add_argument("--race-check", action="store_true",
                   help="check stream orderings against memory accesses (happens-before); a "
                        "race is a `fault:` line, and the exit status 1")
