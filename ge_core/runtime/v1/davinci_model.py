"""DavinciModel: one loaded static model (GE's runtime/v1/.../davinci_model.cc).

``init`` turns a GeModel into a model sunk to the device, in GE's stages - each a StageBegin /
StageEnd pair on the trace bus, so a debugger can stop between them:

    InitModelMem      feature map, variables and weights on the device (or at bases provided)
    InitIoNodes       graph inputs and outputs; the zero-copy offsets of their buffers
    TransAllVarData   variables' initial values to the device
    InitNodes         the op list; streams, events, notifies, labels; kernel handles
    DoTaskSink        BindModelStream (HEAD for streams nothing activates, DEFAULT for the rest),
                      InitTaskInfo and Distribute for every TaskDef, BuildEnd (LoadComplete)

``nn_execute`` is GE's NnExecute, on the caller's thread: inputs bound (zero-copy) or copied in,
the model executed, the stream synchronized (with a timeout: the model is aborted and can run
again), outputs copied out. ``model_run_start`` starts GE's Run loop instead (run_loop.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ge_core.graph import Node
from ge_core.graph.attr_names import ATTR_MODEL_LABEL_NUM, ATTR_MODEL_NOTIFY_NUM, OPSET
from ge_core.graph.multi_batch_gears import Gears
from ge_core.om.ge_model import GeModel
from ge_core.model_task_type import ModelTaskType
from ge_core.om.proto.ge_ir_pb2 import OpDef
from ge_core.runtime.errors import ModelExecuteTimeout, ModelLoadError, ModelOutputError
from ge_core.runtime.model_io import DeviceBuffer, IoDesc, model_inputs, model_outputs
from ge_core.runtime.model_memory import FEATURE_MAP, ModelMemory, trans_all_var_data
from ge_core.runtime.op_kernel import LATEST_OPSET
from ge_core.runtime.v1.data_inputer import Callback, DataInputer, Inputs, Outputs
from ge_core.events import ModelUnloaded
from ge_core.runtime.v1.model_data_copy import ModelDataCopy
from ge_core.runtime.v1.run_loop import ModelRunLoop
from ge_core.runtime.v1.task_info import AddressTaskInfo, TaskInfo, make_task_info
from ge_core.stream_label import stream_label
from ge_core.stage_events import StageBegin, StageEnd
from npu_emu.base.errors import ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, KernelLookupError
from npu_emu.core.stream import ACL_MODEL_STREAM_FLAG_DEFAULT, ACL_MODEL_STREAM_FLAG_HEAD
from npu_emu.feature.model import ModelState
from npu_emu.world import current_runtime

if TYPE_CHECKING:
    from npu_emu.core.event import Event
    from npu_emu.core.label import Label
    from npu_emu.core.notify import Notify
    from npu_emu.core.stream import Stream
    from npu_emu.feature.model import Model

INIT_STAGES = ("InitModelMem", "InitIoNodes", "TransAllVarData", "InitNodes", "DoTaskSink")
KERNEL_TASKS = (ModelTaskType.KERNEL, ModelTaskType.KERNEL_EX)


class DavinciModel:
    def __init__(self, model_id: int, ge_model: GeModel, session_id: int = 0) -> None:
        self.runtime = current_runtime()
        self.context = self.runtime.context()   # loads onto the current device (rtGetDevice)
        self.device = self.context.device
        self.bus = self.runtime.bus
        self.model_id = model_id
        self.session_id = session_id
        self.ge_model = ge_model
        self.name = ge_model.name
        self.graph = ge_model.graph
        self.opset = int(self.graph.attrs.get(OPSET, LATEST_OPSET))
        self.inputs: list[IoDesc] = []
        self.outputs: list[IoDesc] = []
        self.memory: ModelMemory | None = None
        self.io: ModelDataCopy | None = None    # zero-copy offsets and the copies around runs
        self.op_list: list[Node] = []           # by op index
        self.rt_model: Model | None = None      # the aclmdlRI the tasks are sunk into
        self.streams: list[Stream] = []         # by the model's stream id
        self.events: list[Event] = []
        self.notifies: list[Notify] = []
        self.labels: list[Label] = []
        self.task_infos: list[TaskInfo] = []
        self.data_inputer = DataInputer()
        self.listener: Callback | None = None   # told of each Run-loop execution's end
        self.run_loop: ModelRunLoop | None = None
        self.stream_sync_timeout_ms = -1        # ge.exec.streamSyncTimeout: -1 waits forever
        self.last_status = 0                    # of the last execution that finished
        self.last_execute_ns = 0                # its device time, inputs in to outputs out
        self._aborted = False

    def __repr__(self) -> str:
        return f"DavinciModel({self.model_id}, {self.name!r}, {len(self.task_infos)} tasks)"

    # -- init ----------------------------------------------------------------------------------
    def init(self, provided: dict[str, int] | None = None) -> None:
        """Load in GE's stages. ``provided``: device bases for segments the caller owns (the
        feature map via set-feature-memory-base, shared weights)."""
        stages = (lambda: self._init_model_mem(provided), self._init_io_nodes,
                  self._trans_all_var_data, self._init_nodes, self._do_task_sink)
        try:
            for name, stage in zip(INIT_STAGES, stages):
                self.bus.emit(StageBegin, name, self.name)
                stage()
                self.bus.emit(StageEnd, name, self.name, len(self.graph))
        except Exception:
            self.release()
            raise

    def _init_model_mem(self, provided: dict[str, int] | None) -> None:
        self.memory = ModelMemory.allocate(self.device, self.ge_model, provided)

    def _init_io_nodes(self) -> None:
        try:
            self.inputs, self.outputs = model_inputs(self.graph), model_outputs(self.graph)
        except TypeError as exc:   # a dtype with no place in device memory (strings)
            raise ModelLoadError(f"model {self.name}: {exc}") from exc
        self.io = ModelDataCopy(self.runtime, self.name, self.inputs, self.outputs,
                                self.memory.translate, Gears.of(self.graph))

    def _trans_all_var_data(self) -> None:
        trans_all_var_data(self.memory, self.graph)

    def _init_nodes(self) -> None:
        nodes = {n.name: n for n in self.graph.all_nodes()}
        task_def = self.ge_model.task_def
        for raw in task_def.op:
            name = OpDef.FromString(raw).name
            if name not in nodes:
                raise ModelLoadError(f"model {self.name}: task op {name} is not in the graph")
            self.op_list.append(nodes[name])
        self.rt_model = self.runtime.model_build_begin()
        self.rt_model.set_name(self.name)
        self.streams = [self.context.create_stream() for _ in range(task_def.stream_num)]
        self.events = [self.runtime.create_event() for _ in range(task_def.event_num)]
        self.notifies = [self.device.create_notify(f"{self.name} notify {i}")
                         for i in range(int(task_def.attr.get(ATTR_MODEL_NOTIFY_NUM, "0")))]
        self.labels = [self.rt_model.create_label()
                       for _ in range(int(task_def.attr.get(ATTR_MODEL_LABEL_NUM, "0")))]
        for task in task_def.task:   # GE's InitTbeHandle: every kernel known before any sinks
            if task.type in KERNEL_TASKS:
                node = self.node(task.id)
                try:
                    self.runtime.kernels.lookup(node.type, self.opset)
                except KernelLookupError as exc:
                    raise ModelLoadError(f"node {node.name}: {exc}") from exc

    def _do_task_sink(self) -> None:
        head = set(self.ge_model.head_streams)
        for stream_id, stream in enumerate(self.streams):   # BindModelStream
            self.rt_model.bind_stream(stream, ACL_MODEL_STREAM_FLAG_HEAD if stream_id in head
                                      else ACL_MODEL_STREAM_FLAG_DEFAULT)
            self.runtime.name_stream(stream.id, stream_label(stream.id, stream_id))
        self.task_infos = [make_task_info(t, i, self)
                           for i, t in enumerate(self.ge_model.task_def.task)]
        for info in self.task_infos:
            info.init()
        for info in self.task_infos:
            info.distribute()
        self.rt_model.build_end()

    # -- what TaskInfos ask of their model -----------------------------------------------------
    def _pick(self, what: str, table: list, index: int) -> Any:
        if not 0 <= index < len(table):
            raise ModelLoadError(f"model {self.name}: {what} {index} out of range "
                                 f"(the model has {len(table)})")
        return table[index]

    def node(self, op_index: int) -> Node:
        return self._pick("op index", self.op_list, op_index)

    def stream(self, stream_id: int) -> Stream:
        return self._pick("stream", self.streams, stream_id)

    def event(self, event_id: int) -> Event:
        return self._pick("event", self.events, event_id)

    def notify(self, notify_id: int) -> Notify:
        return self._pick("notify", self.notifies, notify_id)

    def label(self, label_id: int) -> Label:
        return self._pick("label", self.labels, label_id)

    def resolve(self, logical: int, user: TaskInfo | None = None) -> int:
        """The device address of a logical one: inside a graph input or output, the buffer
        bound to it now (``user`` then follows its bindings); else by segment."""
        offset = self.io.offset_of(logical)
        if offset is None:
            return self.memory.translate(logical)
        if user is not None:
            offset.add_user(user)
        return offset.bound + logical - offset.io.logical_addr

    # -- NnExecute -----------------------------------------------------------------------------
    def nn_execute(self, inputs: Inputs, outputs: Sequence[DeviceBuffer] | None = None,
                   stream: Stream | None = None, timeout_ms: int | None = None
                   ) -> Outputs | None:
        """Run once. Inputs: host arrays (copied in) or DeviceBuffers (bound, zero-copy), by
        position or by input name. ``outputs``: DeviceBuffers to fill (zero-copy where the
        model allows), else the outputs come back as host arrays by name. ``stream``: queue
        the execution there and return at once (the caller synchronizes; async mode).
        ``timeout_ms``: of device time (None: the model's stream_sync_timeout_ms)."""
        if stream is not None and outputs is None:
            raise ModelOutputError("an execution queued on the caller's stream writes its "
                                   "outputs to the caller's device buffers: give them")
        start = self.device.now
        if stream is not None:   # async mode: everything queued on the caller's stream
            if self._aborted:
                self._reset_sync_objects(stream)
            self.io.copy_in(inputs, outputs, stream)
            self.rt_model.execute_async(stream)
            self.io.copy_out(outputs, stream, self.resolve)
            return None
        # Sync mode (DavinciModel::InitModelStream, NnExecute): the model's stream is a
        # forbidden one (RT_STREAM_FORBIDDEN_DEFAULT), which takes no task: the data is copied
        # with aclrtMemcpy, and aclmdlRIExecute (rtModelExecuteSync) runs the model on the
        # runtime's own stream and waits, aborting it on a timeout.
        own = self.rt_model.own_stream()
        if self._aborted:
            self._reset_sync_objects(own)
        self.io.copy_in(inputs, outputs, None)
        if timeout_ms is None:
            timeout_ms = self.stream_sync_timeout_ms
        status = self.rt_model.execute(timeout_ms)
        if status == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT:
            self._aborted = True
            own.synchronize()   # the abort released the stream's wait: drain what is left
            raise ModelExecuteTimeout(f"model {self.model_id} ({self.name}) did not finish "
                                      f"within {timeout_ms} ms of device time and was aborted")
        self.last_status = status
        self.last_execute_ns = self.device.now - start
        if outputs is None:
            return self.io.host_outputs(self.resolve)
        self.io.copy_out(outputs, None, self.resolve)
        return None

    def _reset_sync_objects(self, stream: Stream) -> None:
        """An aborted run may leave an event recorded that nobody waited on: clear them so the
        next run's waits wait (aclrtResetEvent; notifies are reset the same way, rtNotifyReset)."""
        for event in self.events:
            stream.reset_event(event)
        for notify in self.notifies:
            notify.reset()
        self._aborted = False

    def update_feature_map_base(self, addr: int) -> None:
        """Move the feature map to memory the caller provides (GE's refreshable feature map):
        every task's addresses are re-resolved, graph I/O left bound to the model's own
        buffers follows the move."""
        self.memory.rebase(FEATURE_MAP, addr)
        self.io.rebase(self.memory.translate)
        for info in self.task_infos:
            if isinstance(info, AddressTaskInfo):
                info.refresh_args()

    # -- the Run loop --------------------------------------------------------------------------
    def model_run_start(self) -> ModelRunLoop:
        if self.run_loop is None or not self.run_loop.running:
            self.run_loop = ModelRunLoop(self, self.data_inputer)
        return self.run_loop

    def model_run_stop(self) -> None:
        if self.run_loop is not None:
            self.run_loop.stop()
            self.run_loop = None

    # -- release -------------------------------------------------------------------------------
    @property
    def has_hccl_task(self) -> bool:
        return any(t.type == ModelTaskType.HCCL for t in self.ge_model.task_def.task)

    def release(self) -> None:
        """Every resource the model holds, back to the runtime (unload)."""
        try:
            self.model_run_stop()
        finally:
            if self.rt_model is not None and self.rt_model.state is not ModelState.DESTROYED:
                self.rt_model.destroy()
            for stream in self.streams:
                if stream in stream.context.streams:
                    stream.context.destroy_stream(stream)
            for event in self.events:
                event.destroyed = True
            if self.memory is not None:
                self.memory.release()
            if self.io is not None:
                self.io.release()
            self.bus.emit(ModelUnloaded, self.model_id)

