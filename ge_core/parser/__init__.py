"""Framework parsers: ONNX in, GE's ComputeGraph out."""
from ge_core.parser.onnx_parser import ParseError, parse_onnx

__all__ = ["ParseError", "parse_onnx"]
