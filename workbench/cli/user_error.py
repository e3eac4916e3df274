"""The one way a subcommand reports the user's bad input (how a failure met while running a
model is told: workbench/failure_text.py)."""
from __future__ import annotations


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, never a traceback."""
