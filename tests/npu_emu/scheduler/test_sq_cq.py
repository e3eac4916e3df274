"""SQ/CQ: the host writes SQEs at the SQ's tail, the TS reads at its head and reports each
retired SQE on the CQ, which a synchronize reclaims; positions run on across dropped SQEs."""
import ast
from pathlib import Path

from npu_emu.scheduler.cost_model import Unit


def test_the_ts_reads_at_the_head_and_reports_on_the_cq(rt):
    s = rt.create_stream()
    tasks = [s.launch_timed(f"K{i}", 100, Unit.AI_VECTOR) for i in range(3)]
    assert [t.pos for t in tasks] == [0, 1, 2]
    assert (s.sq.head_pos, s.sq.tail_pos, s.sq.pending, s.cq.tail) == (0, 3, 3, 0)
    ts = rt.device().scheduler
    ts.step()
    ts.step()
    assert (s.sq.head_pos, s.sq.pending, s.cq.tail, s.cq.unreclaimed) == (2, 1, 2, 2)
    s.synchronize()
    assert (s.sq.head_pos, s.sq.pending, s.cq.tail, s.cq.unreclaimed) == (3, 0, 3, 0)


def test_a_drained_stream_drops_its_sqes_and_positions_run_on(rt):
    s = rt.create_stream()
    for i in range(3):
        s.launch_timed(f"K{i}", 100)
    rt.device().synchronize()   # the TS finds the stream drained and drops its SQEs
    later = s.launch_timed("later", 100)
    assert later.pos == 3 and s.sq.entries == [later] and s.sq.base == 3


def test_the_sq_head_moves_only_through_its_class() -> None:
    """Only npu_emu/scheduler/sq_cq.py assigns a ``head`` (retire, seek, rewind): the TS and
    AutoSplit move an SQ through its methods."""
    root = Path(__file__).resolve().parents[3]
    movers = sorted({str(path.relative_to(root))
                     for layer in ("npu_emu", "ge_core", "workbench")
                     for path in (root / layer).rglob("*.py")
                     for node in ast.walk(ast.parse(path.read_text()))
                     if isinstance(node, (ast.Assign, ast.AugAssign))
                     for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(target, ast.Attribute) and target.attr == "head"})
    assert movers == ["npu_emu/scheduler/sq_cq.py"]
