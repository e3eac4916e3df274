"""Whether automatic fusion runs: GE reads the environment variable AUTOFUSE_FLAGS, "--key=value"
items split by ";", and fuses only with --enable_autofuse=true (autofuse_optimize.cc's
IsEnableAutofuse; docs/zh/user_guides/graph_dev/autofuse/autofuse_enable.md)."""
from __future__ import annotations

import os

ENV = "AUTOFUSE_FLAGS"
ENABLE = "--enable_autofuse"


def autofuse_flags(text: str) -> dict[str, str]:
    return dict(item.strip().partition("=")[::2] for item in text.split(";") if item.strip())


def autofuse_enabled(text: str | None = None) -> bool:
    """From ``text``, or the environment when None."""
    flags = autofuse_flags(os.environ.get(ENV, "") if text is None else text)
    return flags.get(ENABLE, "").lower() == "true"
