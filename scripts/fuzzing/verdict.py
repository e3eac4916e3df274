"""How a fuzz case ended, and how a CLI run is judged.

A bad input must end in a typed error: one line naming the thing at fault. What counts against
us: an exception escaping the entry point (a traceback), a Python error shown to the user as
"internal error" or by its raw builtin class name, a hang or runaway memory, and silent
corruption (a wrong result reported as success).
"""
from __future__ import annotations

import builtins
import gc
import io
import re
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import Callable, Sequence

OK, TYPED, UNCAUGHT, RAW, HANG, CORRUPT = "ok", "typed", "uncaught", "raw", "hang", "corrupt"
BAD = (UNCAUGHT, RAW, HANG, CORRUPT)

# A builtin exception's name in what the user sees means a Python error leaked through.
_BUILTIN_ERRORS = sorted(name for name, obj in vars(builtins).items()
                         if isinstance(obj, type) and issubclass(obj, BaseException)
                         and name not in ("KeyboardInterrupt", "SystemExit", "Exception",
                                          "BaseException"))
# CPython's own wording of its errors: a message passed on without its class is as raw.
_PYTHON_WORDING = (
    r"'NoneType' object", r"object has no attribute", r"object is not (?:subscriptable|"
    r"iterable|callable)", r"unsupported operand type", r"positional arguments? but",
    r"unhashable type", r"invalid literal for int\(\)", r"(?:list|tuple|string) index out of "
    r"range", r"codec can't (?:de|en)code", r"division by zero", r"maximum recursion depth",
    r"cannot unpack non-iterable", r"(?:not enough|too many) values to unpack",
    r"can only concatenate", r"descriptor '\w+' for", r"not supported between instances of",
    r"could not convert string to float", r"has no len\(\)",
    r"object cannot be interpreted as an integer", r"must be real number, not")
RAW_ERROR = re.compile(r"internal error|Traceback \(most recent call last\)|"
                       r"\b(?:DecodeError|" + "|".join(_BUILTIN_ERRORS) + r")\b|"
                       + "|".join(_PYTHON_WORDING))


# A user's Python expression (`print EXPR`, a breakpoint's condition) raising is its own error,
# said as such with its class (conditions.raised): the answer, not a leak of ours.
USERS_OWN = re.compile(r"the expression raised \w+: [^\n]*")


@dataclass(frozen=True)
class Verdict:
    kind: str          # one of OK, TYPED, UNCAUGHT, RAW, HANG, CORRUPT
    detail: str = ""   # one line: what happened (the error, the leaked text)

    @property
    def bad(self) -> bool:
        return self.kind in BAD


def where(exc: BaseException) -> str:
    """``file:line in function`` of the innermost frame that raised ``exc``."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{f.filename.rsplit('/', 2)[-2:][-1]}:{f.lineno} in {f.name}"


def judge_call(fn: Callable[[], object]) -> tuple[Verdict, str]:
    """Run ``fn`` with stdout/stderr captured; an escaping exception is UNCAUGHT (MemoryError:
    HANG, runaway memory). Returns the verdict so far and the captured text."""
    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            result = fn()
    except SystemExit as exc:   # argparse rejecting the arguments: a typed usage error
        return Verdict(TYPED if exc.code else OK, f"exit {exc.code}"), out.getvalue()
    except MemoryError as exc:
        return Verdict(HANG, f"runaway memory: MemoryError at {where(exc)}"), out.getvalue()
    except RecursionError as exc:
        return Verdict(UNCAUGHT, f"RecursionError at {where(exc)}"), out.getvalue()
    except BaseException as exc:  # noqa: BLE001 - classifying every escape is the point
        return (Verdict(UNCAUGHT, f"{type(exc).__name__}: {str(exc)[:160]} at {where(exc)}"),
                out.getvalue())
    return Verdict(OK if result in (0, None) else TYPED, f"exit {result}"), out.getvalue()


def judge_text(verdict: Verdict, text: str) -> Verdict:
    """Downgrade a run whose output leaks a raw Python error to RAW."""
    if verdict.bad:
        return verdict
    m = RAW_ERROR.search(USERS_OWN.sub("", text))
    if m is None:
        return verdict
    line = next(ln for ln in text.splitlines() if m.group(0) in ln)
    return Verdict(RAW, line.strip()[:200])


def judge_cli(argv: Sequence[str]) -> Verdict:
    """``gewb ARGV`` in this process: exit status, and no raw Python error in what it printed."""
    from workbench.cli import main
    release_last_case()
    verdict, text = judge_call(lambda: main(list(argv)))
    return judge_text(verdict, text)


def release_last_case() -> None:
    """Free what earlier cases left in reference cycles (their worlds: each reserved a device's
    memory), then freeze what survives (modules, caches), so the next collection walks only
    what the next case made: a full collection over the whole heap cost ~0.4 s a call, more
    than the case. Call it before a case makes anything: a cycle alive at a freeze is never
    collected."""
    gc.collect()
    gc.freeze()


def quiet_stdio() -> None:
    """A worker's own stdout/stderr go nowhere: a case's output is captured per call."""
    sys.stdout = sys.stderr = io.StringIO()


def worst(verdicts: list[Verdict]) -> Verdict:
    """The first bad verdict, else the first typed one, else OK."""
    for kinds in ((UNCAUGHT, RAW, HANG, CORRUPT), (TYPED,)):
        for v in verdicts:
            if v.kind in kinds:
                return v
    return verdicts[0] if verdicts else Verdict(OK)
