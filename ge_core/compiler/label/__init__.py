"""Label lowering: functional control flow (If, Loop, a multi-batch Case) turned into label tasks
on the parent's stream, each body's other streams started by its StreamActive, so a model with
control flow can be sunk to the device (GE's
compiler/graph/label/); a multi-batch Case may instead become a StreamSwitchN over one stream per
gear (stream_switch_n_maker.py).

``assign_functional_labels(graph)`` is the build step before stream assignment (GE's
LabelAllocator::AssignFunctionalLabels); label_maker.py says how a body becomes root nodes.
"""
from ge_core.compiler.label.label_allocator import LabelAllocator, assign_functional_labels
from ge_core.compiler.label.label_maker import LabelMakerError

__all__ = ["LabelAllocator", "LabelMakerError", "assign_functional_labels"]
