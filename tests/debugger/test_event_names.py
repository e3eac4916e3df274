"""The trace event kinds the debugger names by string (so it need not import GE's runtime or
fusion passes) are the names of the events GE emits: a rename there fails here, not silently in
a breakpoint that never hits."""
from ge_core.pattern_fusion import FusionMatched
from ge_core.runtime.v1.events import ModelUnloaded, TaskDistributed
from npu_emu.base.trace import TraceEvent
from workbench.debugger.breakpoints import MODEL_UNLOADED
from workbench.debugger.granularity import FUSION_MATCHED, TASK_DISTRIBUTED


def test_named_kinds_are_ge_trace_events() -> None:
    for name, event in ((TASK_DISTRIBUTED, TaskDistributed), (FUSION_MATCHED, FusionMatched),
                        (MODEL_UNLOADED, ModelUnloaded)):
        assert issubclass(event, TraceEvent)
        assert name == event.__name__
