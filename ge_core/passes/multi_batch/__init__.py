"""The multi-batch (gear) passes: ATC's --dynamic_batch_size, --dynamic_image_size and
--dynamic_dims build one static copy of the graph per gear under a Case (GE's
compiler/graph/passes/multi_batch/ and graph/preprocess/multi_batch_*)."""
from ge_core.passes.multi_batch.dynamic_output_dims import set_dynamic_output_dims
from ge_core.passes.multi_batch.multi_batch_clone_pass import MultiBatchClonePass
from ge_core.passes.multi_batch.multi_batch_options import (DynamicInputType,
                                                            MultiBatchOptionError,
                                                            MultiBatchOptions)
from ge_core.passes.multi_batch.multi_batch_pass import MultiBatchPass, batch_label

__all__ = ["DynamicInputType", "MultiBatchClonePass", "MultiBatchOptionError",
           "MultiBatchOptions", "MultiBatchPass", "batch_label", "set_dynamic_output_dims"]
