"""How long one execution may run before it is ended: GE's graph execution timeout, bounded by
default here so that a Loop that never exits (or counts to 1e12) ends with a message.

GE's option is ``ge.exec.graphExecTimeout`` (OPTION_EXEC_GRAPH_EXEC_TIMEOUT,
inc/graph_metadef/external/ge_common/ge_common_api_types.h), in milliseconds; its default, -1
(kQueueNeverTimeout, dflow/runner/executor/heterogeneous_model_executor.cc), waits forever. A
sunk model's execution ends the way GE's NnExecute ends one that overruns its stream
synchronize timeout (ACL_MDL_STREAM_SYNC_TIMEOUT, also -1 by default): the model is aborted.

The time is emulated device time, never wall time, so a run that times out ends at the same tick
every time it is replayed. The host reference executor keeps no time: it counts each node it
runs as HOST_NODE_NS of it.
"""
from __future__ import annotations

GRAPH_EXEC_TIMEOUT = "ge.exec.graphExecTimeout"
NEVER = -1                      # GE's default: wait forever
DEFAULT_EXEC_TIMEOUT_MS = 1000  # ours: a second of NPU time is far beyond any model shipped here
HOST_NODE_NS = 10_000           # what one host-executed node counts as (a numpy call: ~10 us)


def host_node_budget(timeout_ms: int) -> int | None:
    """How many nodes the host executor may run within ``timeout_ms`` (None: no bound)."""
    return None if timeout_ms < 0 else max(1, timeout_ms * 1_000_000 // HOST_NODE_NS)


def parse_timeout(text: str) -> int:
    """A timeout as the option and the command line take it: ms, or -1 for never (ValueError
    for anything else)."""
    value = int(text)
    if value < NEVER or value == 0:
        raise ValueError(f"timeout {text}: expected milliseconds > 0, or -1 for never")
    return value
