"""What a fault does to a run, gdb's `handle` for the runtime's faults: by default every kind
stops the run where the runtime finds it (gdb stops on SIGSEGV), so a user hunting a sync bug
is parked at the deadlock with the blocked streams still there to look at, not shown the end.
`handle KIND nostop` lets a kind run on; it is still reported when the run ends.

A fault a breakpoint already stopped at (`break fault deadlock`) is not stopped at twice.
"""
from __future__ import annotations

from npu_emu.base.trace import TraceEvent
from npu_emu.runtime import FaultFound
from workbench.debugger.breakpoints import FAULT_KINDS
from workbench.debugger.outcomes import StopReason
from workbench.debugger.stop_table import StopTable

STOP, NOSTOP = "stop", "nostop"


class FaultStopError(ValueError):
    pass


class FaultStops:
    def __init__(self) -> None:
        self.stops: dict[str, bool] = dict.fromkeys(FAULT_KINDS, True)

    def handle(self, kind: str, action: str) -> list[str]:
        """Set ``kind`` (or `all`) to stop or nostop; the kinds it changed."""
        if action not in (STOP, NOSTOP):
            raise FaultStopError(f"handle {kind}: {action!r} is neither {STOP} nor {NOSTOP}")
        kinds = list(FAULT_KINDS) if kind == "all" else [kind]
        if kinds[0] not in self.stops:
            raise FaultStopError(f"no fault kind {kind!r} ({', '.join(FAULT_KINDS)}, all)")
        for k in kinds:
            self.stops[k] = action == STOP
        return kinds

    def rows(self, kinds: list[str] | None = None) -> tuple[tuple[str, str], ...]:
        return tuple((kind, STOP if stop else NOSTOP) for kind, stop in self.stops.items()
                     if kinds is None or kind in kinds)

    def install(self, table: StopTable) -> None:
        """After the breakpoints: a fault one of them stopped at already has its reason."""
        stops = self.stops

        def check(e: TraceEvent, reasons: list[StopReason]) -> None:
            if stops.get(e.fault, True) and not any(r.kind == "breakpoint" for r in reasons):
                reasons.append(StopReason("fault", f"fault {e.fault}"))
        table.add(FaultFound.__name__, check)
