"""A target's kind is an enum of what it has (a graph, a device, a build here, its own code),
which the commands and panes ask instead of comparing display strings."""
from pathlib import Path

import pytest

from workbench.debugger.targets import open_target
from workbench.debugger.targets.target_kind import Capability, TargetKind

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def om_file(tmp_path):
    path = tmp_path / "tiny.om"   # opening a target reads only its name: the file loads later
    path.write_bytes(b"")
    return path


def test_each_file_opens_as_its_kind_with_its_capabilities(om_file):
    onnx = open_target("sample_models/tiny_cnn.onnx", ROOT)
    program = open_target("sample_models/devrun/deadlock.py", ROOT)
    om = open_target(str(om_file), ROOT)
    assert (onnx.kind, om.kind, program.kind) == (TargetKind.ONNX_MODEL, TargetKind.OM_MODEL,
                                                  TargetKind.HOST_PROGRAM)
    has = {t.kind: {c for c in Capability if t.kind.has(c)} for t in (onnx, om, program)}
    assert has[TargetKind.ONNX_MODEL] == {Capability.GRAPH, Capability.DEVICE, Capability.BUILD}
    assert has[TargetKind.OM_MODEL] == {Capability.GRAPH, Capability.DEVICE}
    assert has[TargetKind.HOST_PROGRAM] == {Capability.DEVICE, Capability.SOURCE}
    assert program.runs_code and not onnx.runs_code and not om.runs_code
    assert onnx.label.startswith("tiny_cnn.onnx: ONNX model, phases parse > compile")
