"""The host reference executor: a ComputeGraph run node by node with the device's kernels."""
from ge_core.executor.feeds import FeedError, random_feeds, with_gear
from ge_core.executor.host_executor import (ExecutionError, HostExecTimeout, HostExecutor,
                                            NodeExecuted)

__all__ = ["ExecutionError", "FeedError", "HostExecTimeout", "HostExecutor", "NodeExecuted",
           "random_feeds", "with_gear"]
