"""One current World, a context variable: entered worlds nest; a script run directly gets an
implicit world that acl.finalize drops; a thread sees a world only when it is handed a copy of
its starter's context."""
import contextvars
import threading

import npu_emu.acl as acl
from npu_emu.world import World, current_bus, current_runtime, current_world


def in_fresh_context(fn):
    """Run ``fn`` as a script run directly with python would: no world entered."""
    return contextvars.Context().run(fn)


def test_a_script_gets_an_implicit_world_until_acl_finalize():
    def script():
        world = current_world()
        assert world.implicit and current_world() is world
        assert current_runtime() is world.runtime and current_bus() is world.bus
        assert acl.init() == 0 and acl.rt.set_device(0) == 0
        assert acl.finalize() == 0
        after = current_world()
        assert after is not world and after.implicit and after.runtime.devices == {}
    in_fresh_context(script)


def test_acl_finalize_leaves_an_entered_world_current():
    world = World()
    with world.entered():
        assert acl.init() == 0 and acl.finalize() == 0
        assert current_world() is world and not world.implicit


def test_instance_is_one_per_class_and_world():
    class Manager:
        pass

    first, second = World(), World()
    assert first.instance(Manager) is first.instance(Manager)
    assert first.instance(Manager) is not second.instance(Manager)


def test_a_new_thread_sees_the_world_only_in_a_copied_context():
    seen = {}

    def look(key):
        seen[key] = current_world()

    world = World()
    with world.entered():
        plain = threading.Thread(target=look, args=("plain",))
        copied = threading.Thread(target=contextvars.copy_context().run, args=(look, "copied"))
        for t in (plain, copied):
            t.start()
            t.join()
    assert seen["copied"] is world
    assert seen["plain"] is not world and seen["plain"].implicit
