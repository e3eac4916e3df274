"""The command language: one parser and one command table for the REPL, the TUI and scripts."""
from workbench.commands.session import DebugSession

__all__ = ["DebugSession"]
