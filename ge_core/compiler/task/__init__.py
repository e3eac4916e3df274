"""Task generation (GE's TaskGenerator): an annotated graph -> ModelTaskDef, one builder per task
kind; and the GeModel the build hands to the OM writer and the loader."""
from ge_core.compiler.task.ge_model_builder import build_ge_model
from ge_core.compiler.task.task_builder import TaskGenError, kernel_args, task_count
from ge_core.compiler.task.task_generator import generate_tasks, task_order

__all__ = ["TaskGenError", "build_ge_model", "generate_tasks", "kernel_args", "task_count",
           "task_order"]
