"""A count and its noun agree."""
from npu_emu.base.counted import counted


def test_one_is_singular_and_every_other_count_plural():
    assert [counted(n, "task") for n in (0, 1, 2)] == ["0 tasks", "1 task", "2 tasks"]
    assert counted(1, "notify", "notifies") == "1 notify"
    assert counted(3, "notify", "notifies") == "3 notifies"
