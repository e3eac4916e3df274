"""The node suite side by side with onnxruntime: every case through onnxruntime (one thread, CPU)
and through our vias, judged by the same comparison (the suite's rtol/atol, random outputs by
shape, dtype and range); then the counts per runner and each case onnxruntime passes and a via
fails, with the via's reason.

    python scripts/node_suite_vs_onnxruntime.py [--via host,device] [-k SUBSTRING]

onnxruntime is only a yardstick here (the project depends on it for tests and benchmarks only).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import onnx  # noqa: E402

from workbench.conformance.runner import PASS, run_case  # noqa: E402
from workbench.conformance.suites import SUITES  # noqa: E402
from workbench.conformance.vias import VIAS  # noqa: E402


def run_on_onnxruntime(model: str | onnx.ModelProto, feeds: dict[str, Any]) -> list[Any]:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 4
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else model
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    return session.run(None, {k: v for k, v in feeds.items() if k in names})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--via", default="host,device", help="our vias, comma-separated")
    parser.add_argument("-k", dest="keyword", default="")
    args = parser.parse_args()
    vias = args.via.split(",")
    cases = [c for c in SUITES["node"].discover(0) if args.keyword in c.id]
    ort_pass: set[str] = set()
    results: dict[str, dict[str, Any]] = {v: {} for v in vias}
    for case in cases:
        if run_case(case, run_on_onnxruntime).status == PASS:
            ort_pass.add(case.id)
        for via in vias:
            results[via][case.id] = run_case(case, VIAS[via])
    print(f"onnxruntime: {len(ort_pass)} passed of {len(cases)}")
    for via in vias:
        passed = sum(r.status == PASS for r in results[via].values())
        behind = [r for cid, r in results[via].items() if cid in ort_pass and r.status != PASS]
        print(f"{via}: {passed} passed of {len(cases)}; {len(behind)} that onnxruntime passes "
              f"fail here")
        for r in behind:
            print(f"  {r.case}: {r.reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
