"""The model files the subcommands read: the bundled sample, and an ONNX file parsed with every
way it can be bad turned into one UserError line."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cli.user_error import UserError

if TYPE_CHECKING:
    from ge_core.graph import ComputeGraph

SAMPLE = Path(__file__).resolve().parents[2] / "sample_models" / "tiny_cnn.onnx"


def load_model(path: str) -> ComputeGraph:
    from ge_core.parser import ParseError, parse_onnx
    try:
        return parse_onnx(path)
    except ParseError as exc:
        raise UserError(str(exc)) from exc
