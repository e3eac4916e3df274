"""Conformance: the onnx wheel's backend test data run through GE, compared with expected outputs.

``suites`` finds the cases and their data, ``vias`` names the ways to execute one, ``compare``
judges the outputs, ``runner`` runs and reports (``run_suite``); `gewb conformance` is its face
(workbench/cli/conformance.py).
"""
