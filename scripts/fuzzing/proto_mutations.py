"""Generic mutation of a protobuf message: pick one set field anywhere in it and give it a value
a hand-edited or corrupted file could hold (an extreme int, an empty or huge string, a deleted
or duplicated list element), or, on the serialised bytes, a name that is not UTF-8."""
from __future__ import annotations

from google.protobuf.descriptor import FieldDescriptor as FD
from google.protobuf.message import Message

_RANGES = {FD.TYPE_INT32: (-(2**31), 2**31 - 1), FD.TYPE_SINT32: (-(2**31), 2**31 - 1),
           FD.TYPE_SFIXED32: (-(2**31), 2**31 - 1), FD.TYPE_UINT32: (0, 2**32 - 1),
           FD.TYPE_FIXED32: (0, 2**32 - 1), FD.TYPE_INT64: (-(2**63), 2**63 - 1),
           FD.TYPE_SINT64: (-(2**63), 2**63 - 1), FD.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
           FD.TYPE_UINT64: (0, 2**64 - 1), FD.TYPE_FIXED64: (0, 2**64 - 1),
           FD.TYPE_ENUM: (-(2**31), 2**31 - 1)}
INTS = (0, -1, 1, 7, 2**16, 2**31 - 1, 2**32 - 1, 2**40, 2**62, 2**63 - 1, -(2**62))
Slot = tuple[Message, FD, int | None]   # a message, one of its fields, an index if repeated


def _is_map(fd: FD) -> bool:
    return fd.type == FD.TYPE_MESSAGE and fd.message_type.GetOptions().map_entry


def slots(msg: Message) -> list[Slot]:
    """Every set field of ``msg`` and its sub-messages, depth first, in field order."""
    found: list[Slot] = []
    for fd, value in msg.ListFields():
        if _is_map(fd):
            value_fd = fd.message_type.fields_by_name["value"]
            for key in sorted(value):
                if value_fd.type == FD.TYPE_MESSAGE:
                    found += slots(value[key])
            continue
        if fd.is_repeated:
            found.append((msg, fd, -1))    # the list itself: delete or duplicate an element
            for i, item in enumerate(value):
                found += slots(item) if fd.type == FD.TYPE_MESSAGE else [(msg, fd, i)]
        elif fd.type == FD.TYPE_MESSAGE:
            found += slots(value)
        else:
            found.append((msg, fd, None))
    return found


def _new_value(fd: FD, old, pick: int):
    if fd.type in _RANGES:
        lo, hi = _RANGES[fd.type]
        return min(max(INTS[pick % len(INTS)], lo), hi)
    if fd.type == FD.TYPE_BOOL:
        return not old
    if fd.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return (float("nan"), float("inf"), -1.0, 1e30, 0.0)[pick % 5]
    if fd.type == FD.TYPE_STRING:
        return ("", "x" * 4096, "no_such_thing", old[::-1] if old else "?")[pick % 4]
    if fd.type == FD.TYPE_BYTES:
        return (b"", bytes(old)[: len(old) // 2], b"\xff" * 64)[pick % 3]
    return old


def mutate_message(msg: Message, which: int, pick: int) -> None:
    """Change the ``which``-th slot of ``msg`` (modulo how many there are)."""
    found = slots(msg)
    if not found:
        return
    owner, fd, index = found[which % len(found)]
    field = getattr(owner, fd.name)
    if index == -1:
        if len(field) and pick % 2:
            del field[pick % len(field)]
        elif len(field):
            if fd.type == FD.TYPE_MESSAGE:
                field.add().CopyFrom(field[pick % len(field)])
            else:
                field.append(field[pick % len(field)])
    elif index is not None:
        field[index] = _new_value(fd, field[index], pick)
    else:
        setattr(owner, fd.name, _new_value(fd, field, pick))


def break_utf8(data: bytes, msg: Message, which: int) -> bytes:
    """``data`` (``msg`` serialised) with one string value's first byte made 0xff."""
    strings = [getattr(o, fd.name) if i is None else getattr(o, fd.name)[i]
               for o, fd, i in slots(msg) if fd.type == FD.TYPE_STRING and i != -1]
    strings = [s for s in strings if s]
    if not strings:
        return data
    raw = strings[which % len(strings)].encode()
    return data.replace(raw, b"\xff" + raw[1:], 1)
