"""ModelFileHeader: the 256 bytes an OM file starts with (GE's framework_types_internal.h).

The fields in GE's order and sizes, little-endian. GE's struct has no implicit padding (its
``padd[3]`` puts ``model_length`` on an 8-byte boundary), so packing it field by field with no
alignment gives the very bytes GE's memcpy of the struct does.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, fields

MODEL_FILE_MAGIC_NUM = 0x444F4D49    # "IMOD" as little-endian bytes
MODEL_FILE_HEAD_LEN = 256
MODEL_VERSION = 0x20000000
MODEL_FILE_CHECKSUM_LENGTH = 64
MODEL_NAME_LENGTH = 32
USER_DEFINE_INFO_LENGTH = 32
PLATFORM_VERSION_LEN = 20
MODEL_FILE_RESERVED_LENGTH = 62
CHECK, UNCHECK = 0, 1                 # is_checksum: GE's ModelCheckType
PLATFORM_VERSION = "npu_emu"          # GE writes the SoC version it compiled for

_LAYOUT = struct.Struct(
    "<III"                                  # magic, headsize, version
    f"{MODEL_FILE_CHECKSUM_LENGTH}s"        # checksum
    "IBBBB"                                 # length, is_encrypt, is_checksum, modeltype, genmode
    f"{MODEL_NAME_LENGTH}sI"                # name, ops
    f"{USER_DEFINE_INFO_LENGTH}sII"         # userdefineinfo, om_ir_version, model_num
    f"{PLATFORM_VERSION_LEN}sB3x"           # platform_version, platform_type, padd[3]
    "QBB"                                   # model_length, need_check_os_cpu_info, is_unknow_model
    f"{MODEL_FILE_RESERVED_LENGTH}x")       # reserved
assert _LAYOUT.size == MODEL_FILE_HEAD_LEN, _LAYOUT.size


@dataclass
class ModelFileHeader:
    magic: int = MODEL_FILE_MAGIC_NUM
    headsize: int = MODEL_FILE_HEAD_LEN
    version: int = MODEL_VERSION
    checksum: str = ""           # ours: SHA-256 of the bytes after the header, 64 hex chars
    length: int = 0              # bytes after the header (GE: the plaintext model's length)
    is_encrypt: int = 0
    is_checksum: int = CHECK
    modeltype: int = 0           # 0 IR model
    genmode: int = 0             # 0 offline
    name: str = ""
    ops: int = 0
    userdefineinfo: str = ""
    om_ir_version: int = 0
    model_num: int = 1
    platform_version: str = PLATFORM_VERSION
    platform_type: int = 0
    model_length: int = 0        # the same count as u64: GE's loader reads the u64 table if set
    need_check_os_cpu_info: int = 0
    is_unknow_model: int = 0     # 0 static shape

    def pack(self) -> bytes:
        values = [getattr(self, f.name) for f in fields(self)]
        return _LAYOUT.pack(*(v.encode() if isinstance(v, str) else v for v in values))

    @classmethod
    def unpack(cls, data: bytes) -> "ModelFileHeader":
        """From the first 256 bytes of ``data``; char arrays decode up to their first NUL."""
        values = _LAYOUT.unpack_from(data)
        return cls(*(v.split(b"\0", 1)[0].decode(errors="replace") if isinstance(v, bytes)
                     else v for v in values))

    @property
    def magic_bytes(self) -> bytes:
        return self.magic.to_bytes(4, "little")
