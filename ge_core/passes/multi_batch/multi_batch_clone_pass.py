"""MultiBatchClonePass: one copy of the graph per gear, under a Case that picks the copy at run
time (GE's compiler/graph/passes/multi_batch/multi_batch_clone_pass.cc).

    before                          after (gears 1,2,4 of x:[-1,3,8,8])
    x:[?,3,8,8] -> ... -> out       ascend_mbatch_shape_data:i32[1] -+
                                    ascend_mbatch_shape_const:i32[3] -+-> MapIndex -> Case -> out
                                    x:[4,3,8,8] (the largest gear) --------------------^  |
                                    w (every Const) -----------------------------------^  |
                                                   Case's subgraphs Batch_0, Batch_1, Batch_2:
                                                   the old graph with x:[1|2|4,3,8,8], each node
                                                   renamed <name>_ascend_mbatch_batch_<i>

The root keeps the graph's inputs at the largest gear, so one buffer fits every gear; the extra
input ``ascend_mbatch_shape_data`` carries the current gear's dim values (the runtime writes it,
GE's DavinciModel::CreateMultiBatchDataBuffer), and MapIndex finds their row in the gear table
(``ascend_mbatch_shape_const``) to give the Case its branch index. Weights stay in the root, one
copy: in each gear a Const becomes a Data reading the Case's input (GE's ChangeConstToData). A
graph input wired straight to the output bypasses the Case.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ge_core.graph import ComputeGraph, GeShape, GeTensor, GraphUtils, Node, OpDesc
from ge_core.graph.attr_names import (ATTR_DYNAMIC_TYPE, ATTR_INSERT_BY_MBATCH,
                                      ATTR_MBATCH_ORIGIN_INPUT_DIMS, ATTR_NAME_BATCH_NUM,
                                      ATTR_NAME_INDEX, ATTR_NAME_PARENT_NODE_INDEX,
                                      ATTR_NAME_PRED_VALUE, ATTR_NAME_WEIGHTS,
                                      ATTR_USER_DESIGNEATE_SHAPE_ORDER)
from ge_core.graph.compute_graph import DATA_TYPES, NETOUTPUT
from ge_core.graph.multi_batch_gears import ALL_GEARS_INPUTS, IS_SHAPE_DATA
from ge_core.graph.types import DataType, Format
from ge_core.passes.graph_pass import GraphPass
from ge_core.passes.multi_batch.multi_batch_pass import batch_label
from ge_core.passes.multi_batch.multi_batch_options import (DYNAMIC_DIM, Dims,
                                                            DynamicInputType,
                                                            MultiBatchOptionError,
                                                            MultiBatchOptions)

CASE_NODE = "ascend_mbatch_shape_case"
SHAPE_DATA_NODE = "ascend_mbatch_shape_data"
CONST_NODE = "ascend_mbatch_shape_const"
MAP_INDEX_NODE = "ascend_mbatch_shape_mapindex"
NODE_POSTFIX = "_ascend_mbatch_batch_"
MBATCH_CASE_NAME = "mbatch-switch-name"            # on a root input: the Case it feeds
ENABLE_DYNAMIC_BATCH = "_enable_dynamic_batch"     # on the root graph
CASE_ARG_INDEX = 1                                 # Case input 0 is the branch index


class MultiBatchClonePass(GraphPass):
    name = "MultiBatchClonePass"

    def __init__(self, options: MultiBatchOptions) -> None:
        self.options = options

    def run(self, graph: ComputeGraph) -> bool:
        if graph.parent_graph is not None or not self.options.enabled:
            return False
        gears = self.options.gears()
        datas = graph.input_nodes
        consts = [n for n in graph if n.type == "Const"]
        outputs = [n for n in graph if n.type == NETOUTPUT]
        owner = next((n for n in graph if n.op_desc.subgraph_names), None)
        if not datas or len(outputs) != 1:
            raise MultiBatchOptionError(f"graph {graph.name}: gears need at least one input and "
                                        f"one NetOutput")
        if owner is not None:
            raise MultiBatchOptionError(f"graph {graph.name}: node {owner.name} ({owner.type}) "
                                        f"owns subgraphs; gears over control flow are not "
                                        f"supported here")
        origin = self._origin_dims(datas)
        dynamic = [(d.name, origin[d.name]) for d in self._order(datas, origin)]
        if self.options.dynamic_type is DynamicInputType.DYNAMIC_DIMS:
            count = sum(dims.count(DYNAMIC_DIM) for _, dims in dynamic)
            if len(gears[0]) != count:   # CheckNegativeCountOfOptions
                raise MultiBatchOptionError(f"--dynamic_dims gives {len(gears[0])} values a "
                                            f"gear for {count} -1 dims in --input_shape")
        per_data = _split_gears(gears, dynamic)
        net_output = outputs[0]
        direct = {i: a.peer.owner.name for i, a in enumerate(net_output.in_data_anchors)
                  if a.peer is not None and a.peer.owner.type in DATA_TYPES}
        originals = graph.topological_sort()
        branches = [self._branch(graph, originals, i, origin, per_data, len(datas), consts,
                                 direct) for i in range(len(gears))]
        kept = {n.name: n.op_desc.clone() for n in [*datas, *consts, net_output]}
        for node in reversed(originals):
            GraphUtils.remove_node(node)
        self._root(graph, gears, kept, datas, consts, net_output, direct, origin, per_data,
                   branches)
        graph.set_attr(ENABLE_DYNAMIC_BATCH, True)
        return True

    # -- the dynamic dims (CheckAndParseDynamicData) -------------------------------------------
    def _origin_dims(self, datas: list[Node]) -> dict[str, Dims]:
        """Each input's dims with -1 where a gear gives the value: --input_shape's, else its
        own (UpdateDataShapeByUserInput), checked against the gear kind."""
        given = dict(self.options.user_input_dims())
        names = {_input_name(d): d for d in datas}
        unknown = [name for name in given if name not in names]
        if unknown:
            raise MultiBatchOptionError(f"--input_shape names {', '.join(unknown)}, not an "
                                        f"input of the graph (inputs: {', '.join(names)})")
        origin: dict[str, Dims] = {}
        for data in datas:
            named = _input_name(data) in given
            dims = tuple(given[_input_name(data)] if named
                         else data.op_desc.output_descs[0].shape.dims)
            if DYNAMIC_DIM in dims:
                if not named and self.options.dynamic_type is DynamicInputType.DYNAMIC_DIMS:
                    raise MultiBatchOptionError(f"input {data.name} {list(dims)}: with "
                                                f"--dynamic_dims every dynamic input must be set "
                                                f"in --input_shape")
                layout = ("NHWC" if data.op_desc.output_descs[0].format is Format.FORMAT_NHWC
                          else "NCHW")   # ONNX images are NCHW; the parser leaves them ND
                self.options.check_input(data.name, dims, layout)
            origin[data.name] = dims
        if not any(DYNAMIC_DIM in d for d in origin.values()):
            raise MultiBatchOptionError(f"--{self.options.option_name} needs an input with a -1 "
                                        f"dim (give one with --input_shape)")
        return origin

    def _order(self, datas: list[Node], origin: dict[str, Dims]) -> list[Node]:
        """The dynamic inputs in the order gear values are handed out: --input_shape's, then
        the rest by index."""
        names = [n for n, _ in self.options.user_input_dims()]
        dynamic = [d for d in datas if DYNAMIC_DIM in origin[d.name]]
        return sorted(dynamic, key=lambda d: names.index(_input_name(d))
                      if _input_name(d) in names else len(names) + datas.index(d))

    # -- the gear subgraphs (CreateSubgraphs, UpdateSubgraphData, ChangeConstToData) -----------
    def _branch(self, graph: ComputeGraph, originals: list[Node], gear: int,
                origin: dict[str, Dims], per_data: dict[str, list[Dims]], n_data: int,
                consts: list[Node], direct: dict[int, str]) -> ComputeGraph:
        branch = ComputeGraph(batch_label(gear), graph.bus)  # GE names gear i's graph as its label
        suffix = f"{NODE_POSTFIX}{gear}"
        const_index = {c.name: n_data + k for k, c in enumerate(consts)}
        copies: dict[str, Node] = {}
        for node in originals:
            op = node.op_desc.clone()
            op.name = node.name + suffix
            if node.type in DATA_TYPES:
                index = op.get_attr(ATTR_NAME_INDEX, 0)
                op.set_attr(ATTR_NAME_PARENT_NODE_INDEX, index + CASE_ARG_INDEX)
                if node.name in per_data:
                    op.set_attr(ATTR_MBATCH_ORIGIN_INPUT_DIMS, list(origin[node.name]))
                    dims = _fill(origin[node.name], per_data[node.name][gear])
                else:
                    dims = origin[node.name]
                op.update_output_desc(0, replace(op.output_descs[0], shape=GeShape(dims)))
            elif node.type == "Const":
                op.type = "Data"
                op.del_attr(ATTR_NAME_WEIGHTS)
                op.set_attr(ATTR_NAME_INDEX, const_index[node.name])
                op.set_attr(ATTR_NAME_PARENT_NODE_INDEX, const_index[node.name] + CASE_ARG_INDEX)
            elif node.type == NETOUTPUT:
                keep = [i for i in range(len(op.input_descs)) if i not in direct]
                op.input_descs = [op.input_descs[i] for i in keep]
                op.input_names = [op.input_names[i] for i in keep]
            copies[node.name] = branch.add_node(op)
        for node in originals:
            copy = copies[node.name]
            slots = _net_output_slots(node, direct) if node.type == NETOUTPUT else None
            for anchor in node.in_data_anchors:
                src = anchor.peer
                if src is None or (slots is not None and anchor.idx not in slots):
                    continue
                dst = slots[anchor.idx] if slots is not None else anchor.idx
                GraphUtils.add_edge(copies[src.owner.name].out_data_anchor(src.idx),
                                    copy.in_data_anchor(dst))
            for pred in node.in_control_nodes():
                GraphUtils.add_edge(copies[pred.name].out_control_anchor, copy.in_control_anchor)
        return branch

    # -- the root (CreateRootGraph) --------------------------------------------------------------
    def _root(self, graph: ComputeGraph, gears: list[Dims], kept: dict[str, OpDesc],
              datas: list[Node], consts: list[Node], net_output: Node, direct: dict[int, str],
              origin: dict[str, Dims], per_data: dict[str, list[Dims]],
              branches: list[ComputeGraph]) -> None:
        n_in = len(datas) + len(consts)
        n_out = len(net_output.in_data_anchors) - len(direct)
        case = graph.add_node(OpDesc(CASE_NODE, "Case", CASE_ARG_INDEX + n_in, n_out))
        case_op = case.op_desc
        case_op.set_attr(ATTR_NAME_BATCH_NUM, len(gears))
        for i, gear in enumerate(gears):
            case_op.set_attr(f"{ATTR_NAME_PRED_VALUE}_{i}", list(gear))
        case_op.set_attr(ATTR_USER_DESIGNEATE_SHAPE_ORDER,
                         [name for name, _ in self.options.user_input_dims()])
        case_op.set_attr(ATTR_INSERT_BY_MBATCH, True)
        case_op.set_attr(ATTR_DYNAMIC_TYPE, int(self.options.dynamic_type))
        self._index_nodes(graph, gears, case, len(datas))
        for k, data in enumerate(datas):
            op = kept[data.name]
            if data.name in per_data:
                self._max_shape(op, origin[data.name], per_data[data.name])
            else:   # an input --input_shape fixes (UpdateDataShapeByUserInput)
                op.update_output_desc(0, replace(op.output_descs[0],
                                                 shape=GeShape(origin[data.name])))
            new = graph.add_node(op)
            slot = CASE_ARG_INDEX + op.get_attr(ATTR_NAME_INDEX, k)
            GraphUtils.add_edge(new.out_data_anchor(0), case.in_data_anchor(slot))
        for k, const in enumerate(consts):
            new = graph.add_node(kept[const.name])
            GraphUtils.add_edge(new.out_data_anchor(0),
                                case.in_data_anchor(CASE_ARG_INDEX + len(datas) + k))
        out = graph.add_node(kept[net_output.name])
        slot = 0
        for i in range(len(out.op_desc.input_descs)):
            if i in direct:
                GraphUtils.add_edge(graph.find_node(direct[i]).out_data_anchor(0),
                                    out.in_data_anchor(i))
            else:
                GraphUtils.add_edge(case.out_data_anchor(slot), out.in_data_anchor(i))
                slot += 1
        GraphUtils.add_edge(case.out_control_anchor, out.in_control_anchor)
        for branch in branches:
            graph.add_subgraph(case, branch)

    def _index_nodes(self, graph: ComputeGraph, gears: list[Dims], case: Node,
                     n_data: int) -> None:
        """Data (the gear's values) and Const (the gear table) -> MapIndex -> the Case's branch
        index (CreateIndexNode)."""
        shape = graph.add_node(OpDesc(SHAPE_DATA_NODE, "Data", 0, 1, {
            ATTR_NAME_INDEX: n_data, IS_SHAPE_DATA: True, ATTR_INSERT_BY_MBATCH: True}))
        shape.op_desc.update_output_desc(0, replace(shape.op_desc.output_descs[0],
                                                    shape=GeShape((len(gears[0]),)),
                                                    dtype=DataType.DT_INT32))
        shape.op_desc.set_output_name(0, SHAPE_DATA_NODE)
        table = GeTensor(np.array(gears, np.int32).reshape(-1))
        const = graph.add_node(OpDesc(CONST_NODE, "Const", 0, 1, {ATTR_NAME_WEIGHTS: table}))
        const.op_desc.update_output_desc(0, table.desc)
        index = graph.add_node(OpDesc(MAP_INDEX_NODE, "MapIndex", 2, 1))
        index.op_desc.update_output_desc(0, replace(index.op_desc.output_descs[0],
                                                    shape=GeShape(()), dtype=DataType.DT_INT32))
        GraphUtils.add_edge(shape.out_data_anchor(0), index.in_data_anchor(0))
        GraphUtils.add_edge(const.out_data_anchor(0), index.in_data_anchor(1))
        GraphUtils.add_edge(index.out_data_anchor(0), case.in_data_anchor(0))

    @staticmethod
    def _max_shape(op: OpDesc, origin: Dims, gears: list[Dims]) -> None:
        """SetMaxShapeToData: the root input takes the gear with the most elements, so its
        buffer holds any gear; the gears are recorded beside it."""
        shapes = [_fill(origin, g) for g in gears]
        largest = max(range(len(shapes)), key=lambda i: (math.prod(shapes[i]), -i))
        op.set_attr(ATTR_MBATCH_ORIGIN_INPUT_DIMS, list(origin))
        op.set_attr(MBATCH_CASE_NAME, CASE_NODE)
        desc = op.output_descs[0]
        op.set_attr(ALL_GEARS_INPUTS, [
            f"{desc.format.name[len('FORMAT_'):]}:{desc.dtype.name}:{op.name}:"
            f"{math.prod(s) * desc.dtype.to_numpy().itemsize}:{len(s)}:{','.join(map(str, s))}"
            for s in shapes])
        op.update_output_desc(0, replace(desc, shape=GeShape(shapes[largest])))


def _fill(origin: Dims, values: Dims) -> Dims:
    """CalcShape: the -1s of ``origin`` take ``values`` in order."""
    it = iter(values)
    return tuple(next(it) if d == DYNAMIC_DIM else d for d in origin)


def _split_gears(gears: list[Dims], inputs: list[tuple[str, Dims]]) -> dict[str, list[Dims]]:
    """ParserDataToDynamicInfo: each dynamic input's values in every gear. An input with as many
    -1s as a gear has values takes the whole gear (several inputs sharing one batch size);
    otherwise the inputs take consecutive slices of it."""
    out: dict[str, list[Dims]] = {}
    start = 0
    for name, dims in inputs:
        count = dims.count(DYNAMIC_DIM)
        if count == len(gears[0]):
            out[name] = list(gears)
        elif start + count <= len(gears[0]):
            out[name] = [g[start:start + count] for g in gears]
        else:
            raise MultiBatchOptionError(f"input {name} {list(dims)}: a gear gives "
                                        f"{len(gears[0])} values, too few for its -1 dims")
        start += count
    return out


def _input_name(data: Node) -> str:
    """A graph input by the name a user knows it: its tensor's (the Data's if unnamed)."""
    return data.op_desc.output_names[0] or data.name


def _net_output_slots(node: Node, direct: dict[int, str]) -> dict[int, int]:
    """NetOutput input index -> its index in a gear's NetOutput (direct outputs left out)."""
    keep = [i for i in range(len(node.in_data_anchors)) if i not in direct]
    return {i: k for k, i in enumerate(keep)}
