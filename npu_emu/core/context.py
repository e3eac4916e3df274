"""Contexts: a device's execution environment. Each device has a primary context (made by
aclrtSetDevice); aclrtCreateContext makes more. A context owns a default stream (the NULL
stream of the API) and the streams created in it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from npu_emu.base.errors import InvalidHandleError

if TYPE_CHECKING:
    from npu_emu.core.links import DeviceLink
    from npu_emu.core.stream import Stream


class Context:
    def __init__(self, device: DeviceLink, context_id: int, primary: bool) -> None:
        self.device = device
        self.id = context_id
        self.primary = primary
        self.streams: list[Stream] = []
        self.default_stream = self.create_stream()
        self.destroyed = False

    def create_stream(self, priority: int = 0) -> Stream:
        stream = self.device.new_stream(self, priority)
        self.streams.append(stream)
        return stream

    def destroy_stream(self, stream: Stream) -> None:
        if stream is self.default_stream or stream not in self.streams:
            raise InvalidHandleError(f"stream {stream.label} is not a destroyable stream of "
                                     f"context {self.id}")
        self.device.synchronize_stream(stream)
        stream.destroyed = True
        self.streams.remove(stream)

    def release(self) -> None:
        """The context goes, and its streams with it (aclrtDestroyContext, aclrtResetDevice)."""
        self.destroyed = True
        for stream in self.streams:
            stream.destroyed = True

    def __repr__(self) -> str:
        return f"Context({self.id}, device {self.device.id}{', primary' if self.primary else ''})"
