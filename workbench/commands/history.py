"""Where the faces that take typed lines (the REPL, the app's command line) keep their history:
one file, so Up recalls a line typed in either."""
from __future__ import annotations

import os
from pathlib import Path


def history_path() -> Path:
    return Path(os.environ.get("GEWB_HISTORY", Path.home() / ".gewb_history"))
