"""The last build step (GE's ModelBuilder::BuildModelForGetTask + SaveDataToModel): an
annotated graph -> GeModel, ready for save_om or a loader."""
from __future__ import annotations

from ge_core.compiler.task.task_generator import OpDefs, generate_tasks, set_totals
from ge_core.graph import ComputeGraph
from ge_core.om.ge_model import GeModel, model_attrs
from ge_core.om.weights import pack_weights


def build_ge_model(graph: ComputeGraph, name: str | None = None,
                   per_node: dict[str, int] | None = None, ops: OpDefs | None = None) -> GeModel:
    """``per_node``, ``ops``: see generate_tasks."""
    task_def = generate_tasks(graph, per_node, ops)
    return GeModel(name or graph.name, graph, task_def, pack_weights(graph), model_attrs(task_def))


def regenerate_tasks(model: GeModel, ops: OpDefs) -> GeModel:
    """``model`` again after a stream split that edited its graph (GE's ReGetTaskInfo): every
    task made afresh on the nodes' streams now, the split's event nodes' included, but only the
    op defs of the nodes ``ops`` says the split edited; the weights stand (a split adds no
    constant, nor moves a tensor)."""
    task_def = generate_tasks(model.graph, ops=ops, sizes_from=model.task_def)
    return GeModel(model.name, model.graph, task_def, model.weights, model_attrs(task_def))


def refresh_totals(model: GeModel) -> GeModel:
    """``model`` again after a stream split that changed no node (only the graph's counts): the
    same tasks and weights, the model's totals taken afresh."""
    set_totals(model.task_def, model.graph, sizes_from=model.task_def)
    return GeModel(model.name, model.graph, model.task_def, model.weights,
                   model_attrs(model.task_def))
