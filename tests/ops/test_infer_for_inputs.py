"""infer_for_inputs: an op inferred on a copy in a graph of its own, its own graph untouched; an
If or a Loop reads its results from the bodies of the graph named (check_descs on an OM)."""
from pathlib import Path

from ge_core.graph.attr_names import OPSET
from ge_core.ops.shape_refiner import infer_for_inputs
from ge_core.parser import parse_onnx

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "if_loop.onnx"


def test_an_op_owning_bodies_infers_on_a_copy_from_them():
    graph = parse_onnx(SAMPLE)
    before = graph.edits.snapshot()
    owners = [n for n in graph.all_nodes() if n.op_desc.subgraph_names]
    assert sorted(n.type for n in owners) == ["If", "Loop"]
    for node in owners:
        op = node.op_desc
        inferred = infer_for_inputs(op, [None] * len(op.input_descs), {}, graph.attrs[OPSET],
                                    bodies=graph)
        assert [str(d) for d in inferred] == [str(d) for d in op.output_descs] == ["f32[2,4]"]
    assert not graph.edits.since(before).any
