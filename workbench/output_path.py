"""Files the user names for the workbench to write, by every face the same way: the CLI's --dot,
--output, --trace and --dump, the debugger's dump, export and save-script.

A missing parent folder is made (naming `runs/1/trace.json` asks for it); a path that cannot be
written is one OutputPathError naming it and why. File names the workbench makes up inside a
folder the user chose (from graph names, which come from the model) are made safe first, so
nothing lands outside that folder.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")


class OutputPathError(ValueError):
    """A path the user chose that cannot be written (a ValueError: the command language shows
    it as one line, like any bad argument)."""


def write_output(path: str | os.PathLike, write: Callable[[Path], T], what: str = "",
                 shown: str | None = None) -> T:
    """Make ``path``'s missing parent folders, then ``write(path)``; any failure to do either is
    an OutputPathError naming the path (``what``: the option or command it came from) as the
    user gave it (``shown``; a command's path is resolved from the session's folder, and the
    message should not show them a path they never typed)."""
    text = os.fspath(path)
    shown = text if shown is None else shown
    label = f"{what} {shown}" if what else shown
    if not text or "\0" in text:
        raise OutputPathError(f"{label!r}: not a file name")
    target = Path(text)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return write(target)
    except OSError as exc:
        raise OutputPathError(f"{label}: cannot write ({exc.strerror or exc})") from None


def output_dir(path: str | os.PathLike, what: str = "", shown: str | None = None) -> Path:
    """A folder the user chose for several files: made, with its parents, and writable."""
    def make(target: Path) -> Path:
        target.mkdir(exist_ok=True)
        if not os.access(target, os.W_OK):
            raise PermissionError(13, "permission denied")
        return target
    return write_output(path, make, what, shown)


def file_stem(name: str) -> str:
    """``name`` (a graph's, from the model) as a file name that stays in its folder."""
    safe = _UNSAFE.sub("_", name).lstrip(".")
    return safe or "_"


def writable_file(path: str | os.PathLike, what: str = "") -> Path:
    """A file the user chose, to be written later by code that knows nothing of this module
    (ATC's OM): its parents made, and checked now, so a bad path fails before the work."""
    def check(target: Path) -> Path:
        if target.is_dir():
            raise IsADirectoryError(21, "it is a folder")
        if not os.access(target if target.exists() else target.parent, os.W_OK):
            raise PermissionError(13, "permission denied")
        return target
    return write_output(path, check, what)
