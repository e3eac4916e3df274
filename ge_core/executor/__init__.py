"""The host reference executor: a ComputeGraph run node by node with the device's kernels.

The names below load with their module on first use (PEP 562): a face naming the executor's
event (events.NodeExecuted) does not load the kernels.
"""
from ge_core.lazy_names import lazy_names

_WHERE = {"NodeExecuted": "events", "FeedError": "feeds", "random_feeds": "feeds",
          "with_gear": "feeds", "ExecutionError": "host_executor",
          "HostExecTimeout": "host_executor", "HostExecutor": "host_executor"}

__all__ = sorted(_WHERE)

__getattr__ = lazy_names(__name__, _WHERE)
