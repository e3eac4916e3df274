"""What a fault does to a run, gdb's `handle` for the runtime's faults: by default every kind
stops the run where the runtime finds it (gdb stops on SIGSEGV), so a user hunting a sync bug
is parked at the deadlock with the blocked streams still there to look at, not shown the end.
`handle KIND nostop` lets a kind run on; it is still reported when the run ends.

A host program's own failures are two more kinds. acl-error, a facade call that returned a code
other than success, is reported where it happened and the run goes on, as cuda-gdb's
`set cuda api_failures` does by default; `stop` parks before the call returns, `hide` reports
nothing. python-error, an exception leaving the program, ends the run with its traceback;
`stop` parks at the raise, post-mortem, with the program's frames still there.

A fault a breakpoint already stopped at (`break fault deadlock`) is not stopped at twice.
"""
from __future__ import annotations

from npu_emu.base.trace import TraceEvent
from npu_emu.runtime import FaultFound
from workbench.debugger.breakpoints import FAULT_KINDS
from workbench.debugger.outcomes import StopReason
from workbench.debugger.stop_table import StopTable

STOP, NOSTOP, HIDE = "stop", "nostop", "hide"
ACL_ERROR, PYTHON_ERROR = "acl-error", "python-error"
KINDS = (*FAULT_KINDS, ACL_ERROR, PYTHON_ERROR)


class FaultStopError(ValueError):
    pass


class FaultStops:
    def __init__(self) -> None:
        self.actions: dict[str, str] = {**dict.fromkeys(FAULT_KINDS, STOP),
                                        ACL_ERROR: NOSTOP, PYTHON_ERROR: NOSTOP}

    def handle(self, kind: str, action: str) -> list[str]:
        """Set ``kind`` (or `all`) to stop, nostop (or hide, for acl-error); the kinds it
        changed."""
        kinds = list(KINDS) if kind == "all" else [kind]
        if kinds[0] not in self.actions:
            raise FaultStopError(f"no fault kind {kind!r} ({', '.join(KINDS)}, all)")
        allowed = (STOP, NOSTOP, HIDE) if kind == ACL_ERROR else (STOP, NOSTOP)
        if action not in allowed:
            raise FaultStopError(f"handle {kind}: {action!r} is neither "
                                 f"{', '.join(allowed[:-1])} nor {allowed[-1]}")
        for k in kinds:
            self.actions[k] = action
        return kinds

    def hidden(self, kind: str) -> bool:
        return self.actions.get(kind) == HIDE

    def rows(self, kinds: list[str] | None = None) -> tuple[tuple[str, str], ...]:
        return tuple((kind, action) for kind, action in self.actions.items()
                     if kinds is None or kind in kinds)

    def install(self, table: StopTable) -> None:
        """After the breakpoints: a fault one of them stopped at already has its reason."""
        # (here, not above: a host program's events load the facade, which a target that is
        # not one never needs)
        from npu_emu.acl.call_events import AclCallFailed
        from workbench.debugger.targets.host_runner import ProgramRaised
        actions = self.actions

        def check(e: TraceEvent, reasons: list[StopReason]) -> None:
            if actions.get(e.fault, STOP) == STOP and \
                    not any(r.kind == "breakpoint" for r in reasons):
                reasons.append(StopReason("fault", f"fault {e.fault}"))
        table.add(FaultFound.__name__, check)

        def acl_error(e: AclCallFailed, reasons: list[StopReason]) -> None:
            if actions[ACL_ERROR] == STOP:
                reasons.append(StopReason("fault", f"{ACL_ERROR}: {e.api} returned "
                                                   f"{e.code_name}"))
        table.add(AclCallFailed.__name__, acl_error)

        def python_error(e: ProgramRaised, reasons: list[StopReason]) -> None:
            if actions[PYTHON_ERROR] == STOP:
                reasons.append(StopReason("fault", f"{PYTHON_ERROR}: {e.error} (post-mortem)"))
        table.add(ProgramRaised.__name__, python_error)
