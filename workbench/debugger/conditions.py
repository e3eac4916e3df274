"""Breakpoint conditions: `break sqe stream=2 if time_ns > 5000`. A small, safe expression
language over the event's fields: names, constants, comparisons (with `in`), arithmetic and
and/or/not; no calls, no attributes. An SQE event also offers its task's `stream`, `type`
(lower case, as `break sqe type=` takes it), `name` and `pos`."""
from __future__ import annotations

import ast
from dataclasses import fields, is_dataclass
from typing import Any

from npu_emu.trace import TraceEvent

_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
            ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn,
            ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Name,
            ast.Load, ast.Constant, ast.Tuple, ast.List)


class ConditionError(ValueError):
    pass


class Condition:
    def __init__(self, text: str) -> None:
        self.text = text
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise ConditionError(f"condition {text!r}: {exc.msg}") from exc
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ConditionError(f"condition {text!r}: {type(node).__name__} is not allowed "
                                     f"(names, constants, comparisons, arithmetic, and/or/not)")
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        self._code = compile(tree, "<condition>", "eval")

    def holds(self, event: TraceEvent) -> bool:
        """False, too, when the event lacks a name the condition uses."""
        values = event_values(event)
        if not self.names <= values.keys():
            return False
        try:
            return bool(eval(self._code, {"__builtins__": {}}, values))
        except Exception:   # a type mismatch in the user's expression: it does not hold
            return False


def _event_classes() -> dict[str, type]:
    found, todo = {}, [TraceEvent]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo += cls.__subclasses__()
    return found


def names_of(kinds: list[str]) -> set[str] | None:
    """The names a condition may use on events of ``kinds`` (None: a kind not loaded yet)."""
    classes = _event_classes()
    if any(kind not in classes for kind in kinds):
        return None
    names = {"tick"}
    for kind in kinds:
        own = {f.name for f in fields(classes[kind])}
        names |= own | ({"stream", "type", "name", "pos"} if "task" in own else set())
    return names


def event_values(event: TraceEvent) -> dict[str, Any]:
    values: dict[str, Any] = {"tick": event.tick}
    if is_dataclass(event):
        values.update((f.name, getattr(event, f.name)) for f in fields(event))
    task = values.get("task")
    if task is not None and hasattr(task, "stream"):
        values.update(stream=task.stream.id if task.stream else -1,
                      type=task.type.name.lower(), name=task.name, pos=task.pos)
    return values
