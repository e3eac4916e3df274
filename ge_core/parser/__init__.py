"""Framework parsers: ONNX in, GE's ComputeGraph out."""
from ge_core.parser.onnx_parser import Parsing, parse_onnx
from ge_core.parser.parse_error import ParseError

__all__ = ["ParseError", "Parsing", "parse_onnx"]
