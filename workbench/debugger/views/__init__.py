"""Read-only views of a parked (or finished) run, as outcomes or text: they read the run's state
and world while the worker is parked and change nothing.

    graph_views     the compiler side: a node's IR line, the pass table, the last pass's diff, dumps
    device_views    the device side: streams, events, notifies, labels, models, memory, tensors
    gepass_view     the GEPass walk the compiler is in: queue, re-pass, suspended, deleted
    model_views     GE's side of a model: its memory plan, its OM, ModelManager's models
    timeline_views  the device timeline and the Chrome trace export (a replay to the tick)
    compile_report  a CompileResult as text: the pass table and the stage and build summaries
    tensor_text     a tensor as one summary line or numpy's printout
    tensor_spec     a dtype and shape as typed after an address (as the IR prints them)
    summary         how a run ended: the lines of its Finished outcome
"""
