"""Fuzz gewb's entry points with bad input, and count how each case ended.

    python scripts/fuzz.py --target onnx|om|commands|gwb|acl|exec|serve|escape|all
        --budget N [--json]

Cases are drawn by hypothesis (deterministic for a --seed) and run one by one in a worker
process with a per-case timeout and a capped address space (scripts/fuzzing/worker.py). Per
target it prints: cases, typed errors (bad input refused in one line: what we want), uncaught
exceptions, raw Python errors shown to the user, hangs or runaway memory, and silent-corruption
detections, with the first few bad cases. Exit status 1 if any case was bad.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from fuzzing.targets import TARGETS  # noqa: E402
from fuzzing.verdict import BAD, CORRUPT, HANG, OK, RAW, TYPED, UNCAUGHT  # noqa: E402
from fuzzing.worker import Worker  # noqa: E402

COLUMNS = (("cases", None), ("ok", OK), ("typed", TYPED), ("uncaught", UNCAUGHT),
           ("raw", RAW), ("hangs", HANG), ("corrupt", CORRUPT))


def fuzz(name: str, budget: int, seed_value: int, timeout: float, mem_gb: float,
         progress: int = 0, cases_out: Path | None = None) -> dict:
    """Run ``budget`` cases of target ``name``; every ``progress`` cases (0: never) a line on
    stderr says how far it got, so a long run can be watched. With ``cases_out``, every bad
    case's whole repr is appended to that file (the report keeps only its first 600
    characters), so it can be replayed."""
    target = TARGETS[name]
    worker = Worker(name, timeout, int(mem_gb * (1 << 30)))
    counts: Counter[str] = Counter()
    bad: list[dict] = []    # the first few distinct bad verdicts
    seen: set[str] = set()

    @seed(seed_value)
    @settings(max_examples=budget, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(target.cases())
    def drive(case) -> None:
        verdict = worker.run(case)
        counts[verdict.kind] += 1
        # A hang's detail is the same every time ("no answer in 60 s"): its case tells them apart.
        key = f"{verdict.detail} {case!r}" if verdict.kind == HANG else verdict.detail
        if verdict.kind in BAD and len(bad) < 20 and key not in seen:
            seen.add(key)
            bad.append({"kind": verdict.kind, "detail": verdict.detail, "case": repr(case)[:600]})
        if verdict.kind in BAD and cases_out is not None:
            with cases_out.open("a") as f:
                f.write(json.dumps({"target": name, "kind": verdict.kind,
                                    "detail": verdict.detail, "case": repr(case)}) + "\n")
        done = sum(counts.values())
        if progress and done % progress == 0:
            rate = done / max(time.monotonic() - started, 1e-9)
            print(f"[{name}] {done} cases ({rate:.2f}/s):",
                  " ".join(f"{col} {counts[kind]}" for col, kind in COLUMNS if kind),
                  file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        drive()
    finally:
        worker.stop()
    seconds = time.monotonic() - started
    cases = sum(counts.values())
    return {"target": name, "cases": cases,
            **{col: counts[kind] for col, kind in COLUMNS if kind},
            "seconds": round(seconds, 1), "cases_per_s": round(cases / max(seconds, 1e-9), 2),
            "bad": bad}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="all", choices=[*TARGETS, "all"])
    parser.add_argument("--budget", type=int, default=100, help="cases per target")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--mem-gb", type=float, default=8.0, help="the worker's address space")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--progress", type=int, default=100, metavar="N",
                        help="a progress line on stderr every N cases (0: none)")
    parser.add_argument("--cases-out", type=Path, metavar="FILE",
                        help="append every bad case's whole repr to FILE, one JSON a line")
    args = parser.parse_args()
    # killed (kill PID): stop the worker and remove its scratch directory on the way out
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names = list(TARGETS) if args.target == "all" else [args.target]
    results = []
    for name in names:
        result = fuzz(name, args.budget, args.seed, args.timeout, args.mem_gb, args.progress,
                      args.cases_out)
        results.append(result)
        if not args.json:
            print(" ".join(f"{col} {result[col]}" for col, _ in COLUMNS),
                  f"({result['seconds']} s, {result['cases_per_s']} cases/s)", f"[{name}]",
                  flush=True)
            for b in result["bad"][:5]:
                print(f"  {b['kind']}: {b['detail']}\n    case: {b['case'][:300]}", flush=True)
    if args.json:
        print(json.dumps({r["target"]: r for r in results}))
    return 1 if any(r[col] for r in results for col in ("uncaught", "raw", "hangs", "corrupt")) \
        else 0


if __name__ == "__main__":
    sys.exit(main())
