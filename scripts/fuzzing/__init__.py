"""The fuzzing harness behind scripts/fuzz.py: one module per entry point a user can feed bad
input to (ONNX files, OM files, debugger commands, .gwb scripts, the pyACL facade, exec's
arguments), and the harness that runs their cases in a bounded worker process."""
