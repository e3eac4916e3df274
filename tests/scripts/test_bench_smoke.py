"""Benchmarks that cannot rot: each scripts/bench_*.py runs its --smoke size here, so a renamed
command, a changed API or a hang fails CI rather than the next measurement.

Each smoke prints its --json object (checked for the keys a report reads) and is bounded twice:
by its own --timeout (faulthandler prints every thread's stack, then the run fails) and by the
subprocess timeout here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BOUND = 240   # seconds; the smokes take seconds alone, tens on a loaded 2-core machine

# every benchmark is listed, and the last test keeps the list complete
SMOKES = {
    "bench_build.py": {"mem_over_lb", "noreuse_over_lb", "events", "streams"},
    "bench_compile.py": {"compile_over_ort", "us_per_node"},
    "bench_debugger.py": {"gate_overhead_0bp", "gate_overhead_10bp", "reverse_step_ms",
                          "reverse_step_p95_ms", "reverse_continue_ms", "reverse_continue_p95_ms",
                          "reverse_step_cpu_ms", "reverse_continue_cpu_ms",
                          "reverse_step_cpu_p95_ms", "reverse_continue_cpu_p95_ms",
                          "reverse_step_worst_ms", "stretches", "reverse_step_pass_worst_ms",
                          "reverse_step_pass_worst_freed_ms", "checkpoints", "checkpoint_mib"},
    "bench_exec.py": {"host_over_ort", "device_over_ort", "device_overhead"},
    "bench_scheduler.py": {"sqe_per_s_free", "sqe_per_s_recording", "sqe_per_s_minimal_des",
                           "recording_over_minimal"},
    "bench_tui.py": {"first_screen_s", "step_ms", "step_sqe_ms", "step_20k_ms"},
}
ELSEWHERE = {"bench_serve.py"}   # its smoke starts browsers: a slow test of its own


def _smoke(script: str, *more: str, cwd: Path = ROOT) -> dict:
    """The --json object of ``script``'s smoke (with ``more`` options), run from ``cwd``."""
    pytest.importorskip("onnxruntime")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--smoke", "--json",
                           *more, "--timeout", str(BOUND - 20)], capture_output=True, text=True,
                          timeout=BOUND, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", sorted(SMOKES))
def test_smoke_runs_and_reports(script: str) -> None:
    report = _smoke(script)
    assert SMOKES[script] <= set(report), (script, sorted(report))
    numbers = [v for value in report.values()
               for v in (value.values() if isinstance(value, dict) else [value])]
    assert all(v is not None for v in numbers), report


def test_bench_exec_says_where_each_side_spends_its_run(tmp_path: Path) -> None:
    # --by-op: each side's op types with their ms per run; onnxruntime's profiler writes a
    # file, which must not land where the benchmark was started
    by_op = _smoke("bench_exec.py", "--by-op", cwd=tmp_path)["by_op"]["squeezenet"]
    # SqueezeNet's 26 convs, fused with their Relus on either side, and its 3 MaxPools
    assert set(by_op["device"]) == {"FusedConv", "MaxPool", "GlobalAveragePool", "Softmax"}
    assert {"Conv", "MaxPool", "GlobalAveragePool", "Softmax"} <= set(by_op["ort"])
    assert all(ms > 0 for side in by_op.values() for ms in side.values())
    assert list(tmp_path.iterdir()) == []


def test_bench_compile_says_where_each_compile_goes() -> None:
    # --by-stage: the parse, each compile stage and each build stage, by the stage clock, which
    # add up to no more than the whole
    times = _smoke("bench_compile.py", "--by-stage")["by_stage"]["squeezenet"]
    stages = {"parse", "Prepare", "OptimizeOriginalGraph", "EnginePlacer", "Partition",
              "OptimizeSubgraph", "MergeSubgraph", "OptimizeStage2", "AssignMemory", "GenTask"}
    assert stages <= set(times), sorted(times)
    assert all(ms > 0 for ms in times.values()), times
    assert sum(ms for s, ms in times.items() if s != "total") <= times["total"]


def test_every_benchmark_has_a_smoke() -> None:
    scripts = {p.name for p in (ROOT / "scripts").glob("bench_*.py")}
    assert scripts == set(SMOKES) | ELSEWHERE


def test_bench_compile_reads_a_size_as_written_or_in_thousands() -> None:
    # "1000" is a thousand nodes: read as thousands, it asked for a million, and the run went
    # past any timeout
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from bench_compile import main, node_counts
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert node_counts("1000,1k,50k,") == [("1000", 1000), ("1k", 1000), ("50k", 50_000)]
    assert node_counts("") == []
    for bad in ("1m", "k", "0", "-5"):
        with pytest.raises(SystemExit):
            main(["--sizes", bad, "--models", ""])
