"""hot_event's constructor: the dataclass's own, faster, for events and GeTensorDesc alike."""
import dataclasses

import pytest

from npu_emu.base.hot_event import hot_event


@hot_event
@dataclasses.dataclass(frozen=True, slots=True)
class _Point:
    x: int
    y: int = 2
    label: str = "p"


def test_it_keeps_the_fields_defaults_and_order():
    assert _Point(1) == _Point(1, 2, "p") and _Point(1, label="q").label == "q"
    assert _Point(3, 4).y == 4 and dataclasses.astuple(_Point(5)) == (5, 2, "p")
    with pytest.raises(TypeError):
        _Point()   # a field without a default is still required


def test_the_instance_stays_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Point(1).x = 2


def test_a_default_factory_is_refused_not_dropped():
    with pytest.raises(TypeError, match="default factory"):
        @hot_event
        @dataclasses.dataclass(frozen=True, slots=True)
        class _Bag:
            items: list = dataclasses.field(default_factory=list)
