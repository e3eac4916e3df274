"""Lesson: single-op execution (aclopExecute): one op compiled as a minimal graph of its own,
cached per stream, executed on the device.

GE builds Data -> op -> NetOutput for the op (the graph PyTorch's aclop path hands it), compiles
and builds it like any model, turns its TaskDefs into op tasks (SingleOpModel::BuildTaskList:
a TBE kernel becomes a TbeOpTask) and keeps them in the stream's StreamResource under the op's
type, shapes, dtypes and attributes. Each call launches the tasks straight on the stream. The
same call again is a cache hit; a new shape is a new compile; with dynamic=True one
DynamicSingleOp, compiled with unknown dims, serves every shape of its rank with one task.

    gewb devrun sample_models/devrun/single_op.py
"""
import numpy as np

from ge_core.runtime.single_op import SingleOp, execute_single_op, single_op_manager
from ge_core.runtime.v2 import default_stream

rng = np.random.default_rng(0)
a, b = rng.random((2, 8), dtype=np.float32), rng.random((2, 8), dtype=np.float32)
cache = single_op_manager().get_resource(default_stream())


def add(x, y, **options):
    (z,) = execute_single_op("Add", [x, y], **options)
    print(f"Add {list(x.shape)}{' dynamic' if options else ''}: equals x + y: "
          f"{bool(np.array_equal(z, x + y))}; cache {cache.misses} misses, {cache.hits} hits")


def newest_op_tasks():
    op = list(cache.ops.values())[-1]
    tasks = op.tasks if isinstance(op, SingleOp) else [op.op_task]
    print(f"  {type(op).__name__}: {', '.join(repr(t) for t in tasks)}")


add(a, b)                                   # compiled, built into its tasks
newest_op_tasks()
add(a, b)                                   # the same op again: a cache hit
add(np.ones((4, 8), np.float32), np.ones((4, 8), np.float32))   # a new shape: compiled again
for rows in (3, 5):                         # one dynamic op for both shapes
    add(rng.random((rows, 8), dtype=np.float32), rng.random((rows, 8), dtype=np.float32),
        dynamic=True)
newest_op_tasks()
