"""Conformance: the onnx wheel's backend test data run through GE, compared with expected outputs.

``suites`` finds the cases and their data, ``vias`` names the ways to execute one, ``compare``
judges the outputs, ``runner`` runs and reports (``run_suite``), ``command`` is `gewb conformance`.
"""
from workbench.conformance.command import add_conformance_parser

__all__ = ["add_conformance_parser"]
