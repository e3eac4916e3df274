"""ModelFileHeader and the partition table: GE's sizes, field order and packing."""
import struct

from ge_core.om.model_file_header import MODEL_FILE_HEAD_LEN, ModelFileHeader
from ge_core.om.partition_table import (ModelPartitionType, pack_partitions, table_size,
                                        unpack_table)


def test_the_header_is_256_bytes_and_every_field_reads_back():
    header = ModelFileHeader(checksum="ab" * 32, length=1234, is_encrypt=1, is_checksum=1,
                             modeltype=3, genmode=1, name="resnet50", ops=7,
                             userdefineinfo="lesson 3", om_ir_version=9, model_num=2,
                             platform_version="Ascend910B", platform_type=1,
                             model_length=(1 << 40) + 5, need_check_os_cpu_info=1,
                             is_unknow_model=1)
    data = header.pack()
    assert len(data) == MODEL_FILE_HEAD_LEN == 256
    assert ModelFileHeader.unpack(data) == header


def test_fields_sit_at_ges_offsets():
    data = ModelFileHeader(checksum="c" * 64, length=77, name="m", model_length=99).pack()
    assert data[:4] == b"IMOD"                               # magic 0x444F4D49, little-endian
    assert struct.unpack_from("<II", data, 4) == (256, 0x20000000)
    assert data[12:76] == b"c" * 64                          # checksum[64]
    assert struct.unpack_from("<I", data, 76) == (77,)       # length
    assert data[84:86] == b"m\0"                             # name[32] after the 4 flag bytes
    assert struct.unpack_from("<Q", data, 184) == (99,)      # model_length, after padd[3]
    assert data[194:] == bytes(62)                           # reserved[62]


def test_a_long_name_is_cut_to_32_bytes():
    data = ModelFileHeader(name="x" * 40).pack()
    assert ModelFileHeader.unpack(data).name == "x" * 32


def test_the_partition_table_has_ges_struct_sizes_and_relative_offsets():
    body = pack_partitions([(ModelPartitionType.MODEL_DEF, b"abc"),
                            (ModelPartitionType.TASK_INFO, b"defgh")])
    assert table_size(2) == 8 + 2 * 24  # u32 num + pad; {u32 type + pad, u64, u64} each
    entries = unpack_table(body, 0)
    assert [(e.type, e.mem_offset, e.mem_size) for e in entries] == [(0, 0, 3), (2, 3, 5)]
    assert body[table_size(2):] == b"abcdefgh"
