"""Distribution: the hardware-facing firmware, and Spit's flow, type-check
against the MicroPython stubs for rp2 and esp32 (mypy; see tests/device/typecheck.py:
one mypy run a port over all of typecheck.MODULES)."""
import pytest

import typecheck


@pytest.mark.parametrize("port", typecheck.PORTS)
def test_firmware_typechecks_against_port_stubs(port):
    assert typecheck.check(port) == []
