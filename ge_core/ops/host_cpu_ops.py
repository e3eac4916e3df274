"""What runs on the host CPU engine (DNN_VM_HOST_CPU), and why, in one line a user can read.

Strings live in host memory (GE places string ops on the host CPU), and an ONNX sequence or
optional is no tensor at all: the IR carries it as a DT_VARIANT value, which device memory has no
form for. A subgraph op other than If, Case and Loop (SequenceMap, FlexAttention with its mods) has
bodies no device label program expresses, so the host runs it, bodies and all; so does a Scan
that ScanPass could not make a Loop (it names why). Any node
touching a string or variant runs there too (Equal on strings, Identity of a sequence). A graph
with such a node loads hybrid: its host nodes run on host values, the others on the device,
with copies where the two meet.
"""
from __future__ import annotations

from ge_core.graph import ComputeGraph, Node
from ge_core.graph.attr_names import ENGINE, SCAN_KEPT_REASON
from ge_core.graph.types import DataType

HOST_CPU_ENGINE = "DNN_VM_HOST_CPU"

_STRING_OPS = frozenset({"StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch"})
_SEQUENCE_OPS = frozenset({"SequenceConstruct", "SequenceAt", "SequenceInsert", "SequenceErase",
                           "SequenceLength", "SequenceEmpty", "SplitToSequence",
                           "ConcatFromSequence", "SequenceMap", "Optional",
                           "OptionalHasElement", "OptionalGetElement"})
HOST_ONLY_DTYPES = frozenset({DataType.DT_STRING, DataType.DT_VARIANT})
# GE's own bookkeeping nodes pass any value along without touching memory (Data, NetOutput) or
# stand for a partition's boundary; they stay GE-local whatever they carry.
_BOOKKEEPING = frozenset({"Data", "RefData", "Const", "Constant", "Variable", "NetOutput",
                          "NoOp", "PlaceHolder", "End"})


def host_cpu_reason(node: Node) -> str | None:
    """Why ``node`` runs on the host CPU engine, or None if it need not (the placer and the
    build ask it of every node several times: the type is read once)."""
    op = node.op_desc
    op_type = op.type
    if op_type in _STRING_OPS:
        return "a string op: strings live in host memory"
    if op_type in _SEQUENCE_OPS:
        return "a sequence/optional op: the device has no form for a sequence"
    if op_type == "Scan":   # ScanPass makes a Loop of any other
        kept = op.get_attr(SCAN_KEPT_REASON)
        return None if kept is None else f"ScanPass kept it a Scan: {kept}"
    if op.subgraph_names and op_type not in ("If", "Case", "Loop"):
        return f"{op_type}'s body graphs, which no device label program expresses, run there"
    if op_type in _BOOKKEEPING:
        return None
    for descs in (op.input_descs, op.output_descs):
        for desc in descs:
            if not desc.absent and desc.dtype in HOST_ONLY_DTYPES:
                kind = "string" if desc.dtype == DataType.DT_STRING else "sequence/optional"
                return f"it reads or writes a {kind} value, which only host memory holds"
    return None


def host_cpu_nodes(graph: ComputeGraph) -> list[Node]:
    """The nodes of ``graph`` (and its subgraphs) that must run on the host CPU engine."""
    return [n for n in graph.all_nodes() if host_cpu_reason(n) is not None]


def needs_host(graph: ComputeGraph) -> bool:
    """Some node runs on the host CPU engine, or some value (a graph input, say) is one only host
    memory holds: then the model cannot be sunk whole."""
    return any(host_cpu_reason(n) is not None or any(d.dtype in HOST_ONLY_DTYPES
                                                     for d in n.op_desc.output_descs)
               for n in graph.all_nodes())


def host_cpu_notes(graph: ComputeGraph, placed: bool = True) -> list[str]:
    """One line per node on the host CPU engine, saying why: those the placer put there, or
    (``placed`` False: a graph not compiled yet) those it will."""
    return [f"node {n.name} ({n.type}) runs on {HOST_CPU_ENGINE}: {host_cpu_reason(n)}; the "
            f"model loads hybrid" for n in host_cpu_nodes(graph)
            if not placed or n.op_desc.get_attr(ENGINE) == HOST_CPU_ENGINE]
