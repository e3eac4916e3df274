"""Host executor and emulated device vs onnxruntime, all on one thread, on the light-random models.

docs/architecture.md's performance anchor "emulated execution vs onnxruntime single-threaded
inference", measured as ratios in one run because these machines are noisy: per model, the same
rewritten model and input go through every side, timed alternately, and the medians are compared.

- host: GE's host reference executor, node by node (no compile);
- device: compiled, built and loaded once (not timed) as GE's v1 runtime loads it, then each
  timed run is one NnExecute: inputs copied in, the sunk model executed on the emulated NPU,
  outputs copied out. Its overhead is the share of that time spent outside the kernels'
  own numpy work (the scheduler, args tables, copies in and out): the time of the same run
  with every kernel swapped for one that does nothing, over a real run's. (A clock read around
  each kernel costs more than it measures: a CPU clock is a system call, about 1.5 us, twice
  per kernel, and made about half of the 10% ShuffleNet showed that way; a wall clock there
  charged the machine's other load to whichever part it preempted.)

Times are CPU seconds of this process, as in bench_compile: every side runs on this one thread,
and on a machine shared with other work a wall clock measures the others' load more than the
code (medians of wall-time ratios swung by 1.5x between runs of the same tree).

    python scripts/bench_exec.py [--models resnet50,vgg19] [--repeat 5] [--json] [--blas-as-set]
                                 [--by-op] [--smoke] [--timeout SECONDS]

`--smoke` runs squeezenet once per side, for CI; --timeout bounds the whole run (every thread's
stack is printed past it).

`--by-op` also says where each device run's time goes, beside onnxruntime's: ms per run by op
type, the device's kernels each timed by a wall clock around it (a monotonic clock read is a
vDSO call of tens of ns, where the CPU clock's system call cost more than it measured, above),
onnxruntime's by its own profiler, over the same runs, the first left out. The types are each
side's own: the device's FusedConv is a Conv with its BatchNorm and Relu (GE's fusions), and
onnxruntime's Reorder* ops are its layout changes. Its profile file goes to a temporary
directory, removed after.

Each side runs its library's own kernels for this CPU. Where the environment forces OpenBLAS
onto another core type or cache size (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE: the development
machine sets Haswell on an AVX-512 CPU), that slows numpy's sgemm (every Conv and
Gemm) but not onnxruntime's MLAS, so the script restarts itself without them and says so on
stderr; ``--blas-as-set`` measures under the forced setting instead. The table's heading names
the BLAS core in use.
"""
from __future__ import annotations

import importlib.util
import os
import sys

FORCED_BLAS = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]
if __name__ == "__main__" and FORCED_BLAS and "--blas-as-set" not in sys.argv:
    print(f"bench_exec: restarting without {', '.join(FORCED_BLAS)} so that OpenBLAS picks its "
          "own core (--blas-as-set keeps them)", file=sys.stderr, flush=True)
    os.execve(sys.executable, [sys.executable, *sys.argv],
              {k: v for k, v in os.environ.items() if k not in FORCED_BLAS})

# One BLAS thread, like onnxruntime's one intra-op thread. Without threadpoolctl the variables
# must be set before numpy loads its BLAS, hence before the imports below.
HAVE_THREADPOOLCTL = importlib.util.find_spec("threadpoolctl") is not None
if not HAVE_THREADPOOLCTL:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import faulthandler  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any, Callable, Iterator, Sequence  # noqa: E402

import onnx  # noqa: E402

from ge_core.compiler import CompileOptions  # noqa: E402
from ge_core.executor import HostExecutor  # noqa: E402
from ge_core.ge_options import RunMode  # noqa: E402
from ge_core.parser import parse_onnx  # noqa: E402
from ge_core.runtime.v1 import DavinciModel  # noqa: E402
from ge_core.session import GraphManager  # noqa: E402
from npu_emu.core.kernel_task import KernelTask  # noqa: E402
from npu_emu.world import World  # noqa: E402
from workbench.conformance.light_random import ort_session, randomise_weights  # noqa: E402
from workbench.conformance.suites import dummy_feeds, light_models  # noqa: E402

SEED = 0
CLOCK = time.process_time  # see the module's docstring


def ort_version() -> str:
    import onnxruntime
    return onnxruntime.__version__
SIDES = ("host", "ort", "device")


def blas_core() -> str:
    """The BLAS numpy calls and the core type it dispatched to, as threadpoolctl reports it."""
    if not HAVE_THREADPOOLCTL:
        return "unknown BLAS"
    from threadpoolctl import threadpool_info
    blas = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    return ", ".join(f"{i['internal_api']} {i.get('architecture', '?')}" for i in blas) or "none"


def one_blas_thread() -> contextlib.AbstractContextManager:
    if HAVE_THREADPOOLCTL:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(limits=1)
    return contextlib.nullcontext()  # the environment variables already did it


# op type -> (ms per run, calls per run)
OpTimes = dict[str, tuple[float, float]]


@dataclass
class Timing:
    ms: dict[str, float]       # side -> median CPU ms
    device_overhead: float     # a device run's CPU time with idle kernels, over a real run's
    by_op: dict[str, OpTimes] | None = None   # "device" and "ort" -> their op types' times


def _no_work(*inputs: Any, out: Sequence[Any], **attrs: Any) -> tuple[Any, ...]:
    return tuple(out)   # the outputs left as they are, so the task has nothing to copy


_no_work.writes_out = True  # type: ignore[attr-defined]


def _timed(fn: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    """``fn``, adding the wall seconds of each call to ``spent[0]`` and counting it in
    ``spent[1]``."""
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start
            spent[1] += 1

    run.writes_out = getattr(fn, "writes_out", False)  # type: ignore[attr-defined]
    return run


class SunkKernels:
    """The kernels of a loaded model's sunk tasks, swapped for a measurement and back: for one
    that does nothing (a run with them idle is the device's own work, every task launched,
    scheduled and retired), or for themselves timed."""

    def __init__(self, model: DavinciModel) -> None:
        self.tasks = [i.task for i in model.task_infos if isinstance(i.task, KernelTask)]

    @contextlib.contextmanager
    def _swapped(self, fns: list[Callable[..., Any]]) -> Iterator[None]:
        kept = [task.fn for task in self.tasks]
        for task, fn in zip(self.tasks, fns):
            task.fn = fn
        try:
            yield
        finally:
            for task, fn in zip(self.tasks, kept):
                task.fn = fn

    def idle(self) -> contextlib.AbstractContextManager[None]:
        return self._swapped([_no_work] * len(self.tasks))

    def timed(self, spent: dict[str, list[float]]) -> contextlib.AbstractContextManager[None]:
        """Each kernel timed into ``spent[its op type]`` ([seconds, calls])."""
        return self._swapped([_timed(task.fn, spent.setdefault(task.op_type, [0.0, 0]))
                              for task in self.tasks])


def device_op_times(kernels: SunkKernels, run: Callable[[], Any], repeat: int) -> OpTimes:
    """ms and calls per run of each op type's kernels, over ``repeat`` runs after one more."""
    spent: dict[str, list[float]] = {}
    with kernels.timed(spent):
        for i in range(1 + repeat):
            if i == 1:   # the first run warms up, as in bench_model
                for times in spent.values():
                    times[:] = [0.0, 0]
            run()
    return {op: (s * 1e3 / repeat, calls / repeat) for op, (s, calls) in spent.items()}


def ort_op_times(model: onnx.ModelProto, feeds: dict[str, Any], repeat: int) -> OpTimes:
    """ms and calls per run of each op type onnxruntime ran, by its profiler, over ``repeat``
    runs after one more: the nodes it timed inside each run but the first."""
    with tempfile.TemporaryDirectory() as tmp:
        session = ort_session(model, profile_prefix=os.path.join(tmp, "ort_profile"))
        for _ in range(1 + repeat):
            session.run(None, feeds)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")
    spent: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time") \
                and any(start <= e["ts"] <= end for start, end in runs[1:]):
            spent[e["args"]["op_name"]] += e["dur"] / 1e3   # its durations are in us
            calls[e["args"]["op_name"]] += 1
    return {op: (ms / repeat, calls[op] / repeat) for op, ms in spent.items()}


@contextlib.contextmanager
def loaded_on_device(model: onnx.ModelProto) -> Iterator[DavinciModel]:
    """``model`` compiled, built and loaded sunk on a fresh emulated NPU (GE's defaults)."""
    manager = GraphManager(CompileOptions(dump=None))
    graph = manager.parse(model)
    manager.compile(graph)
    root = manager.build_root_model(graph, RunMode.SINK)
    with World().entered(), manager.loaded(root, RunMode.SINK) as device:
        yield device


def bench_model(path: str, repeat: int, by_op: bool = False) -> Timing:
    """Median ms per side; parsing, compiling, loading and session creation are not timed.
    ``by_op``: also the device's and onnxruntime's times by op type, in runs of their own (the
    device's kernels timed after the timed runs, which their clocks would slow; onnxruntime's
    in a profiling session of its own)."""
    model = randomise_weights(onnx.load(path), SEED)
    feeds = dummy_feeds(model, SEED, random=True)
    host = HostExecutor(parse_onnx(model))
    session = ort_session(model)
    ort_ops = ort_op_times(model, feeds, repeat) if by_op else None
    with loaded_on_device(model) as device:
        del model  # VGG-19's weights are half a gigabyte; every side holds its own copy
        kernels = SunkKernels(device)
        runs: dict[str, Callable[[], Any]] = {"host": lambda: host.run(feeds),
                                              "ort": lambda: session.run(None, feeds),
                                              "device": lambda: device.nn_execute(feeds),
                                              "idle": lambda: device.nn_execute(feeds)}
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(1 + repeat):  # interleaved, so a noisy spell hits every side alike
            for key, fn in runs.items():
                with kernels.idle() if key == "idle" else contextlib.nullcontext():
                    start = CLOCK()
                    fn()
                    spent = CLOCK() - start
                times[key].append(spent * 1e3)
        ops = None if ort_ops is None else \
            {"device": device_op_times(kernels, runs["device"], repeat), "ort": ort_ops}
    # the first round warms up: first-touch page faults, lazy allocations
    ms = {k: statistics.median(v[1:]) for k, v in times.items()}
    return Timing(ms, ms["idle"] / ms["device"], ops)


def op_table(by_op: dict[str, OpTimes]) -> list[str]:
    """The two sides' op types as rows, the dearest first, and their totals."""
    device, ort = by_op["device"], by_op["ort"]
    rows = [f"  {'op type':<22} {'device ms':>10} {'calls':>6} {'ort ms':>9} {'calls':>6}"]
    ops = sorted(set(device) | set(ort),
                 key=lambda op: -max(device.get(op, (0, 0))[0], ort.get(op, (0, 0))[0]))
    for op in ops:
        cells = [f"{d[0]:10.3f} {d[1]:6g}" if (d := side.get(op)) else f"{'-':>10} {'':>6}"
                 for side in (device, ort)]
        rows.append(f"  {op:<22} {cells[0]} {cells[1][1:]}")
    rows.append(f"  {'total':<22} {sum(t for t, _ in device.values()):10.3f} {'':>6} "
                f"{sum(t for t, _ in ort.values()):9.3f}")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    models = {name.removeprefix("test_"): path for name, path, _, _ in light_models()}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(models),
                        help=f"comma-separated, from: {', '.join(models)} (default: all)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per side (default 5)")
    parser.add_argument("--json", action="store_true",
                        help='print only {"host_over_ort": {model: ratio}, "device_over_ort": '
                             '{model: ratio}, "device_overhead": {model: share}}')
    parser.add_argument("--blas-as-set", action="store_true",
                        help="keep OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE as the environment sets "
                             "them (default: restart without)")
    parser.add_argument("--by-op", action="store_true",
                        help="also each model's device kernels and onnxruntime's nodes, ms per "
                             "run by op type (with --json: a \"by_op\" key)")
    parser.add_argument("--smoke", action="store_true", help="squeezenet, one run per side")
    parser.add_argument("--timeout", type=float, default=3600,
                        help="seconds the whole run may take; past it every "
                             "thread's stack is printed and it fails")
    args = parser.parse_args(argv)
    faulthandler.dump_traceback_later(args.timeout, exit=True)
    if args.smoke:
        args.models, args.repeat = "squeezenet", 1
    chosen = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in models]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; valid: {', '.join(models)}")
    report: dict[str, dict[str, Any]] = {"host_over_ort": {}, "device_over_ort": {},
                                         "device_overhead": {}}
    if args.by_op:
        report["by_op"] = {}
    if not args.json:
        print(f"BLAS: {blas_core()}; onnxruntime {ort_version()}", flush=True)
        print(f"{'model':<14} {'host ms':>9} {'ort ms':>9} {'device ms':>10} {'host/ort':>9} "
              f"{'device/ort':>11} {'overhead':>9}", flush=True)
    with one_blas_thread():
        for name in chosen:
            t = bench_model(models[name], args.repeat, args.by_op)
            report["host_over_ort"][name] = round(t.ms["host"] / t.ms["ort"], 3)
            report["device_over_ort"][name] = round(t.ms["device"] / t.ms["ort"], 3)
            report["device_overhead"][name] = round(t.device_overhead, 3)
            if not args.json:
                print(f"{name:<14} {t.ms['host']:9.1f} {t.ms['ort']:9.1f} {t.ms['device']:10.1f} "
                      f"{report['host_over_ort'][name]:9.2f} "
                      f"{report['device_over_ort'][name]:11.2f} {t.device_overhead:9.1%}",
                      flush=True)
            if t.by_op is not None:
                report["by_op"][name] = {side: {op: round(ms, 4) for op, (ms, _) in ops.items()}
                                         for side, ops in t.by_op.items()}
                if not args.json:
                    print("\n".join(op_table(t.by_op)), flush=True)
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
