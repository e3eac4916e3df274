"""Breakpoint conditions: `break sqe rt_stream=2 if time_ns > 5000`.

A condition runs on every event its breakpoint matches, so it is evaluated by a small evaluator
of its own, not Python's eval, over a fixed namespace: the event's fields as its `event:` line
names them (a stream as logical_stream or rt_stream: stream_names.py), `tick`, and for an SQE
its task's `rt_stream`, `type` (lower case, as `break sqe type=` takes it), `name` and `pos`.
It allows names, constants, comparisons (with `in` and `is`), arithmetic on numbers, `+` and `*`
on strings and tuples, and/or/not, tuple and list displays, and a public data attribute of a
value (`task.name`; no `_` names, no methods: nothing is called). Its cost is bounded: at most
MAX_TEXT characters and MAX_DEPTH levels of nesting, and no string, tuple or list it builds is
longer than MAX_ITEMS.

A condition that fails on an event (a type mismatch, a division by zero, a limit) raises a
ConditionError; the breakpoint reports it and stops there, as gdb does.
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Callable

from npu_emu.base.trace import TraceEvent
from workbench.debugger.stream_names import RT, event_fields, shown_names

MAX_TEXT = 500
MAX_DEPTH = 24
MAX_ITEMS = 4096

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.Not: operator.not_, ast.USub: operator.neg,
                                            ast.UAdd: operator.pos}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_STRUCTURE = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.BinOp, ast.Compare,
              ast.Name, ast.Load, ast.Constant, ast.Tuple, ast.List, ast.Attribute)
_ALLOWED = _STRUCTURE + tuple(_BINARY) + tuple(_UNARY) + tuple(_COMPARE)
_CONSTANTS = (int, float, str, bool, type(None))
_NUMBER = (int, float)   # bool is an int
_SEQUENCE = (str, tuple)


def raised(exc: Exception) -> str:
    """What a user's expression raised, said as its own: its class is part of the answer (as
    pdb gives it), and not an error of the workbench's."""
    return f"the expression raised {type(exc).__name__}: {exc}"


class ConditionError(ValueError):
    pass


class Condition:
    def __init__(self, text: str) -> None:
        self.text = text
        tree = _checked_tree(text)
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        self._evaluate = _compiled(tree.body)

    def holds(self, event: TraceEvent) -> bool:
        """False when the event lacks a name the condition uses (a breakpoint that listens to
        several kinds); a ConditionError when evaluating it fails."""
        values = event_values(event)
        if not self.names <= values.keys():
            return False
        try:
            return bool(self._evaluate(values))
        except ConditionError:
            raise
        except Exception as exc:   # the user's expression met a value it does not fit
            raise ConditionError(raised(exc)) from None


def _checked_tree(text: str) -> ast.Expression:
    if len(text) > MAX_TEXT:
        raise ConditionError(f"condition of {len(text)} characters: at most {MAX_TEXT}")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ConditionError(f"condition {text!r}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:   # a NUL byte, nesting too deep
        raise ConditionError(f"condition {text!r}: {type(exc).__name__}") from None
    todo = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise ConditionError(f"condition {text!r}: nested more than {MAX_DEPTH} deep")
        if not isinstance(node, _ALLOWED):
            raise ConditionError(f"condition {text!r}: {type(node).__name__} is not allowed "
                                 f"(names, constants, comparisons, arithmetic, and/or/not)")
        if isinstance(node, ast.Constant) and not isinstance(node.value, _CONSTANTS):
            raise ConditionError(f"condition {text!r}: the constant {node.value!r} is not "
                                 f"allowed (numbers, strings, True, False, None)")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ConditionError(f"condition {text!r}: .{node.attr}: no attribute starting "
                                 f"with _")
        todo += [(child, depth + 1) for child in ast.iter_child_nodes(node)]
    return tree


Evaluate = Callable[[dict[str, Any]], Any]   # the event's values -> the node's value


def _compiled(node: ast.AST) -> Evaluate:
    """The checked tree as nested closures, built once: an event then costs no tree walk."""
    if isinstance(node, ast.Constant):
        value = node.value
        return lambda values: value
    if isinstance(node, ast.Name):
        return operator.itemgetter(node.id)
    if isinstance(node, ast.Attribute):
        of, name = _compiled(node.value), node.attr
        return lambda values: _attribute(of(values), name)
    if isinstance(node, ast.BoolOp):
        operands, is_and = [_compiled(v) for v in node.values], isinstance(node.op, ast.And)

        def bool_op(values: dict[str, Any]) -> Any:
            result: Any = is_and
            for operand in operands:   # short-circuit, as Python does
                result = operand(values)
                if bool(result) != is_and:
                    break
            return result
        return bool_op
    if isinstance(node, ast.UnaryOp):
        unary, operand = _UNARY[type(node.op)], _compiled(node.operand)
        return lambda values: unary(operand(values))
    if isinstance(node, ast.BinOp):
        op, left, right = type(node.op), _compiled(node.left), _compiled(node.right)
        return lambda values: _binary(op, left(values), right(values))
    if isinstance(node, ast.Compare):
        first = _compiled(node.left)
        rest = [(_COMPARE[type(op)], _compiled(c)) for op, c in zip(node.ops, node.comparators)]

        def compare(values: dict[str, Any]) -> bool:
            left = first(values)
            for test, comparator in rest:
                right = comparator(values)
                if not test(left, right):
                    return False
                left = right
            return True
        return compare
    elements = [_compiled(e) for e in node.elts]   # a tuple or list display
    return lambda values: tuple(e(values) for e in elements)


def _attribute(value: Any, name: str) -> Any:
    try:
        found = getattr(value, name)
    except AttributeError:
        raise ConditionError(f"{type(value).__name__} has no attribute {name!r}") from None
    if callable(found):
        raise ConditionError(f"{type(value).__name__}.{name} is a method: a condition calls "
                             f"nothing")
    return found


def _binary(op: type, a: Any, b: Any) -> Any:
    """Numbers with numbers; strings and tuples joined (+) or repeated (*) up to MAX_ITEMS."""
    if isinstance(a, _NUMBER) and isinstance(b, _NUMBER):
        return _BINARY[op](a, b)
    if op is ast.Add and isinstance(a, _SEQUENCE) and type(a) is type(b):
        size = len(a) + len(b)
    elif op is ast.Mult and isinstance(a, _SEQUENCE) and isinstance(b, int):
        size = len(a) * b
    elif op is ast.Mult and isinstance(b, _SEQUENCE) and isinstance(a, int):
        size = len(b) * a
    else:
        raise ConditionError(f"unsupported operand types for {_SYMBOL[op]}: "
                             f"{type(a).__name__} and {type(b).__name__}")
    if size > MAX_ITEMS:
        raise ConditionError(f"a value of {size} items: a condition builds at most {MAX_ITEMS}")
    return _BINARY[op](a, b)


_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
           ast.Mod: "%"}


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
        own = set(shown_names(classes[kind]).values())
        names |= own | ({RT, "type", "name", "pos"} if "task" in own else set())
    return names


def event_values(event: TraceEvent) -> dict[str, Any]:
    values: dict[str, Any] = {"tick": event.tick, **dict(event_fields(event))}
    task = values.get("task")
    if task is not None and hasattr(task, "stream"):
        values.update({RT: task.stream.id if task.stream else -1, "type": task.type.name.lower(),
                       "name": task.name, "pos": task.pos})
    return values
