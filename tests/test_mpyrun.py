"""The MicroPython harness: what a test measures of the heap is the
firmware's, not the checkout's."""
import mpyrun

HEAP_AFTER_IMPORTS = """
import gc
import machine
import speedref.tunables
import speedref.storage
gc.collect()
print(gc.mem_alloc())
"""


def test_the_heap_a_test_sees_does_not_depend_on_where_the_repository_is(tmp_path, monkeypatch):
    """The same code, the same heap, whether the checkout's path is short or
    60 characters longer: each module's file name is built in the heap from
    the path it was found on."""
    here = int(mpyrun.run(code=HEAP_AFTER_IMPORTS).stdout)
    deep = tmp_path / ("d" * 60)
    deep.symlink_to(mpyrun.ROOT)
    for name in ("FAKES", "MPY_BUILD", "SUPPORT"):
        monkeypatch.setattr(mpyrun, name, deep / getattr(mpyrun, name).relative_to(mpyrun.ROOT))
    there = int(mpyrun.run(code=HEAP_AFTER_IMPORTS).stdout)
    assert there == here
