"""TensorFlow-style control flow (Switch, Merge) turned into GE's stream ops, in GE's order
(graph_manager.cc, OptimizeStage1_1 and OptimizeStage1_3; hicann/ge
compiler/graph/passes/control_flow_and_stream/):

    MergeInputMemcpyPass       a MemcpyAsync before each Merge input: every branch writes the
                               Merge's one buffer
    MergeToStreamMergePass     Merge -> StreamMerge, a StreamActive after each input that starts
                               the StreamMerge's stream
    SwitchToStreamSwitchPass   Switch -> Cast(pred), a StreamActive, and a StreamSwitch per
                               branch that starts the branch's stream when pred equals 1 or 0
    AttachStreamLabelPass      a _stream_label on each branch and on what follows a StreamMerge,
                               and each StreamSwitch's _active_label_list

The stream passes then give each label a stream, and SetActiveStreamsByLabel turns the labels
into the streams each StreamActive and StreamSwitch starts.
"""
from ge_core.passes.control_flow_and_stream.attach_stream_label_pass import AttachStreamLabelPass
from ge_core.passes.control_flow_and_stream.merge_input_memcpy_pass import MergeInputMemcpyPass
from ge_core.passes.control_flow_and_stream.merge_to_stream_merge_pass import (
    MergeToStreamMergePass)
from ge_core.passes.control_flow_and_stream.switch_to_stream_switch_pass import (
    SwitchToStreamSwitchPass)

__all__ = ["AttachStreamLabelPass", "MergeInputMemcpyPass", "MergeToStreamMergePass",
           "SwitchToStreamSwitchPass"]
