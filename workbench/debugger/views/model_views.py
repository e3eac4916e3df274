"""GE's side of a model, read while parked: the built model's memory plan (`info memory-plan`),
the built model as the OM file ATC would write (`info om`), and the models GE's ModelManager
holds with their Run loops (`info ge-models`).

The OM writer and GE's runtime are imported by the commands that read them: loaded with the
debugger they would cost every face's start (the app's first screen) most of GE."""
from __future__ import annotations

from ge_core.compiler.memory.mem_options import shown_assigner
from ge_core.compiler.memory.mem_map import FEATURE_MAP, ZERO_COPY_INPUT, ZERO_COPY_OUTPUT
from ge_core.stream_label import logical_stream_name
from npu_emu.world import World
from workbench.debugger.outcomes import Outcome, Printed, TableOutcome
from workbench.debugger.stream_names import LOGICAL
from workbench.debugger.targets.program import RunState


NO_PLAN = "no memory plan yet: the build's AssignMemory stage makes it"


def memory_plan(state: RunState | None) -> Outcome:
    """Memory assignment's result: every feature-map and zero-copy buffer with its offset, size,
    lifetime (first writer to last reader, by op index) and stream, and the figures that judge
    it: the assigner HybridMemAssigner kept, each one's total, the lower bound, no reuse."""
    plan = state.memory_plan if state is not None else None
    if plan is None:
        return Printed(NO_PLAN)
    rows = tuple((r.segment, str(r.offset), str(r.size),
                  f"{r.first}-{r.last} {plan.op_names[r.first]}..{plan.op_names[r.last]}",
                  "-" if r.stream < 0 else logical_stream_name(r.stream),   # -: zero-copy
                  r.label + "".join(f" ={a}" for a in r.aliases))
                 for r in plan.rows if r.segment in (FEATURE_MAP, ZERO_COPY_INPUT,
                                                     ZERO_COPY_OUTPUT))
    totals = ", ".join(f"{shown_assigner(name)} {total}"
                       for name, total in plan.assigner_totals.items())
    title = (f"memory plan: feature map {plan.feature_map_bytes} B by "
             f"{shown_assigner(plan.assigner)} "
             f"(lower bound {plan.lower_bound_bytes} B, no reuse {plan.no_reuse_bytes} B; "
             f"assigners tried: {totals}); weights {plan.weight_bytes} B, zero-copy "
             f"{plan.zero_copy_bytes} B" + (
                 f"; fixed feature map {plan.fixed_feature_map_bytes} B (HCCL's buffers: a "
                 f"user may provide it, SetGraphFixedFeatureMemoryBase)"
                 if plan.fixed_feature_map_bytes else ""))
    return TableOutcome(title, ("segment", "offset", "bytes", "ops (first-last)", LOGICAL,
                                "buffer"), rows)


def om(state: RunState | None) -> Outcome:
    model = state.ge_model if state is not None else None
    if model is None:
        return Printed("no model yet: the build phase makes one (an OM target reads one)")
    from ge_core.om.om_file import om_bytes
    from ge_core.om.om_info import om_info_of
    # Reading the OM back makes graphs, whose events must not reach the run's bus (its gate
    # would park this thread): they go to a world of their own, whose bus nobody listens to.
    with World().entered():
        text = om_info_of(om_bytes(model), f"{model.name}.om (as ATC writes it)")
    return Printed(text.rstrip())


def ge_models(world: World) -> Outcome:
    """ModelManager's model_map (static models, sunk) and hybrid_model_map."""
    from ge_core.runtime.v1.model_manager import ModelManager
    manager = world.instance(ModelManager)
    rows = []
    for model_id, m in sorted(manager.model_map.items()):
        loop = m.run_loop
        rows.append((str(model_id), "static", m.name, str(m.session_id),
                     str(m.rt_model.id) if m.rt_model is not None else "-",
                     str(len(m.streams)), str(len(m.task_infos)),
                     "running" if loop is not None and loop.running else "-",
                     str(len(m.data_inputer)), str(m.last_status)))
    for model_id, m in sorted(manager.hybrid_model_map.items()):
        rows.append((str(model_id), "hybrid", m.graph.name, "-", "-", "-", "-", "-", "-", "-"))
    if not rows:
        return Printed("no models loaded by GE (ModelManager is empty)")
    return TableOutcome("GE models (ModelManager)", ("model", "kind", "name", "session",
                                                     "rt model", f"{LOGICAL}s", "tasks",
                                                     "run loop", "queued", "last status"),
                        tuple(rows))

