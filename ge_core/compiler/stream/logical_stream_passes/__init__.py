"""GE's logical stream passes, one module each (logical_stream_allocator.cc)."""
from ge_core.compiler.stream.logical_stream_passes.all_reduce_parallel_pass import (
    AllReduceParallelPass)
from ge_core.compiler.stream.logical_stream_passes.assign_by_dependency_pass import (
    AssignByDependencyPass)
from ge_core.compiler.stream.logical_stream_passes.assign_by_label_pass import AssignByLabelPass
from ge_core.compiler.stream.logical_stream_passes.assign_label_body_streams_pass import (
    AssignLabelBodyStreamsPass)
from ge_core.compiler.stream.logical_stream_passes.independent_stream_pass import (
    IndependentStreamPass)
from ge_core.compiler.stream.logical_stream_passes.node_stream_update_pass import (
    NodeStreamUpdatePass)
from ge_core.compiler.stream.logical_stream_passes.optimize_ineffective_multi_stream_pass import (
    OptimizeIneffectiveMultiStreamPass)
from ge_core.compiler.stream.logical_stream_passes.refresh_continuous_streams_pass import (
    RefreshContinuousStreamsPass)
from ge_core.compiler.stream.logical_stream_passes.single_stream_pass import SingleStreamPass
from ge_core.compiler.stream.logical_stream_passes.update_for_mde_group_pass import (
    UpdateForMdeGroupPass)
from ge_core.compiler.stream.logical_stream_passes.update_for_parallel_group_pass import (
    UpdateForParallelGroupPass)
from ge_core.compiler.stream.logical_stream_passes.update_for_skipped_engine_pass import (
    UpdateForSkippedEnginePass)

__all__ = ["AllReduceParallelPass", "AssignByDependencyPass", "AssignByLabelPass",
           "AssignLabelBodyStreamsPass", "IndependentStreamPass", "NodeStreamUpdatePass",
           "OptimizeIneffectiveMultiStreamPass", "RefreshContinuousStreamsPass", "SingleStreamPass",
           "UpdateForMdeGroupPass", "UpdateForParallelGroupPass", "UpdateForSkippedEnginePass"]
