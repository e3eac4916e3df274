"""Host executor vs onnxruntime, both on one thread, on the light-random models.

DESIGN.md's performance anchor "emulated execution vs onnxruntime single-threaded inference",
measured as a ratio in one run because these machines are noisy: per model, the same rewritten
model and input go through both, timed alternately, and the medians are compared.

    python scripts/bench_exec.py [--models resnet50,vgg19] [--repeat 5] [--json]
"""
from __future__ import annotations

import importlib.util
import os

# One BLAS thread, like onnxruntime's one intra-op thread. Without threadpoolctl the variables
# must be set before numpy loads its BLAS, hence before the imports below.
HAVE_THREADPOOLCTL = importlib.util.find_spec("threadpoolctl") is not None
if not HAVE_THREADPOOLCTL:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from typing import Any, Callable, Sequence  # noqa: E402

import onnx  # noqa: E402

from ge_core.executor import HostExecutor  # noqa: E402
from ge_core.parser import parse_onnx  # noqa: E402
from workbench.conformance.light_random import ort_session, randomise_weights  # noqa: E402
from workbench.conformance.suites import dummy_feeds, light_models  # noqa: E402

SEED = 0


def one_blas_thread() -> contextlib.AbstractContextManager:
    if HAVE_THREADPOOLCTL:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(limits=1)
    return contextlib.nullcontext()  # the environment variables already did it


def bench_model(path: str, repeat: int) -> tuple[float, float]:
    """(host median ms, onnxruntime median ms); parsing and session creation are not timed."""
    model = randomise_weights(onnx.load(path), SEED)
    feeds = dummy_feeds(model, SEED, random=True)
    host = HostExecutor(parse_onnx(model))
    session = ort_session(model)
    del model  # VGG-19's weights are half a gigabyte; both runners hold their own copy
    runs: dict[str, Callable[[], Any]] = {"host": lambda: host.run(feeds),
                                          "ort": lambda: session.run(None, feeds)}
    times: dict[str, list[float]] = {k: [] for k in runs}
    for fn in runs.values():  # warm-up: first-touch page faults, lazy allocations
        fn()
    for _ in range(repeat):  # interleaved, so a noisy spell hits both sides alike
        for key, fn in runs.items():
            start = time.perf_counter()
            fn()
            times[key].append((time.perf_counter() - start) * 1e3)
    return statistics.median(times["host"]), statistics.median(times["ort"])


def main(argv: Sequence[str] | None = None) -> int:
    models = {name.removeprefix("test_"): path for name, path, _, _ in light_models()}
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(models),
                        help=f"comma-separated, from: {', '.join(models)} (default: all)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per side (default 5)")
    parser.add_argument("--json", action="store_true",
                        help='print only {"host_over_ort": {model: ratio}}')
    args = parser.parse_args(argv)
    chosen = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in models]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; valid: {', '.join(models)}")
    ratios = {}
    if not args.json:
        print(f"{'model':<14} {'host ms':>9} {'ort ms':>9} {'host/ort':>9}", flush=True)
    with one_blas_thread():
        for name in chosen:
            host_ms, ort_ms = bench_model(models[name], args.repeat)
            ratios[name] = round(host_ms / ort_ms, 3)
            if not args.json:
                print(f"{name:<14} {host_ms:9.1f} {ort_ms:9.1f} {ratios[name]:9.2f}", flush=True)
    if args.json:
        print(json.dumps({"host_over_ort": ratios}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
