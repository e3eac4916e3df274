"""One TaskInfo class per ModelTaskType (GE's task_info/): importing this package registers
them all in TASK_INFOS; ``make_task_info`` picks the class for a TaskDef."""
from ge_core.runtime.v1.task_info import (dvpp_task_info, end_graph_task_info,  # noqa: F401
                                          event_record_task_info, event_wait_task_info,
                                          hccl_task_info,
                                          kernel_ex_task_info, kernel_task_info,
                                          label_goto_task_info, label_set_task_info,
                                          label_switch_by_index_task_info,
                                          memcpy_async_task_info, notify_record_task_info,
                                          notify_wait_task_info, stream_active_task_info,
                                          stream_switch_n_task_info, stream_switch_task_info)
from ge_core.runtime.v1.task_info.task_info import (TASK_INFOS, AddressTaskInfo, TaskInfo,
                                                    make_task_info)

__all__ = ["TASK_INFOS", "AddressTaskInfo", "TaskInfo", "make_task_info"]
