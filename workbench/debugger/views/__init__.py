"""Read-only views of a parked (or finished) run, as outcomes, text or plain data: they read the
run's state and world while the worker is parked and change nothing.

    graph_views     the compiler side: a node's IR line, the pass table, the last pass's diff, dumps
    device_views    the device side: streams, events, notifies, labels, models, memory, tensors
    gepass_view     the GEPass walk the compiler is in: queue, re-pass, suspended, deleted
    model_views     GE's side of a model: its memory plan, its OM, ModelManager's models
    timeline_views  the device timeline and the Chrome trace export (a replay to the tick)
    compile_report  a CompileResult as text: the pass table and the stage and build summaries
    tensor_text     a tensor as one summary line or numpy's printout
    tensor_spec     a dtype and shape as typed after an address (as the IR prints them)
    summary         how a run ended: the lines of its Finished outcome

What the app's panes draw (plain data; the REPL's `list` and `backtrace` read host_source too):

    run_recorder    a face's recorder of the current run (Debugger.recorders)
    graph_table     the graph as a table of sections, rows and a node's anchors with peers
    step_changes    what the last command changed in the graph: cells old -> new
    pass_tree       the pipeline as stage -> pass, with node deltas, times and each pass's IR diff
    device_state    each stream's SQ window and state in words, units, the wait-for chain
    memory_map      the memory plan's buffers over offset x lifetime, and its segments
    timeline_lanes  lanes per stream and per unit over emulated time, record -> wait links
    host_source     a host program's frames and the line that submitted each SQE
"""
