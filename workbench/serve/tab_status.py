"""Where a served tab is, for the teacher's view (/class): the tab's app writes it to a file the
server named in its environment; the server reads it when the teacher asks. A file, not a
message: textual-serve's protocol carries the screen and nothing of ours."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

ENV = "GEWB_TAB_STATUS"


@dataclass(frozen=True)
class TabStatus:
    lesson: str = ""
    step: str = ""        # the lesson's line reached, of its lines
    last_stop: str = ""   # the target, the tick and why it stopped there
    last_error: str = ""


def report(status: TabStatus) -> None:
    """Write ``status`` where the server asked (nothing outside `gewb serve`)."""
    path = os.environ.get(ENV)
    if not path:
        return
    partial = Path(path + ".part")
    partial.write_text(json.dumps(asdict(status)))
    partial.replace(path)   # the server never reads half a file


def read_status(path: Path) -> TabStatus:
    try:
        return TabStatus(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return TabStatus()
