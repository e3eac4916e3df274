"""`python -m workbench.cli` is gewb from a checkout: the same parser, and a user error is the
same one line on stderr with exit status 2 (not a traceback from a second copy of the module)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_m(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_a_user_error_is_one_line_with_status_2():
    done = python_m("graph", "missing.onnx")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "gewb graph: missing.onnx: no such file\n"


def test_help_lists_every_subcommand():
    done = python_m("--help")
    assert done.returncode == 0
    for name in ("graph", "ops", "compile", "passes", "om-info", "conformance", "devrun", "exec",
                 "repl", "run"):
        assert f"\n    {name}" in done.stdout
