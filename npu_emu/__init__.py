"""The emulated NPU and CANN Runtime, in floors (seed 003's layers): base/ -> driver/, op_impl/
-> scheduler/ -> checkers/ -> core/ -> feature/ -> runtime.py, world.py -> snapshot/ -> acl/.
Knows nothing of graphs. See docs/architecture.md."""
