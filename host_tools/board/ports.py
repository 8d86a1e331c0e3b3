"""Find the referee board among the serial ports (pyserial's list_ports).

A board running MicroPython shows up with one of a few USB vendor/product ids:
the Pico's own USB (Raspberry Pi's VID, MicroPython's PID), MicroPython's
generic TinyUSB id, and on ESP32 boards the USB-UART bridge chip or Espressif's
built-in USB serial.  Anything else (a mouse's serial, a phone) is ignored.
"""
# (vid, pid) -> what it is; grouped by the board family they appear on.
BOARD_IDS = {
    "pico": {
        (0x2E8A, 0x0005): "Raspberry Pi Pico (MicroPython)",
        (0xF055, 0x9802): "MicroPython board (TinyUSB)",
    },
    "esp32": {
        (0x10C4, 0xEA60): "ESP32 via CP210x USB-UART",
        (0x1A86, 0x7523): "ESP32 via CH340 USB-UART",
        (0x1A86, 0x55D4): "ESP32 via CH9102 USB-UART",
        (0x0403, 0x6001): "ESP32 via FTDI USB-UART",
        (0x303A, 0x1001): "ESP32 built-in USB serial",
        (0x303A, 0x4001): "ESP32 (MicroPython TinyUSB)",
    },
}


def board_ids(board=None):
    if board:
        return BOARD_IDS[board]
    out = {}
    for ids in BOARD_IDS.values():
        out.update(ids)
    return out


def candidate_ports(board=None, comports=None):
    """Ports that look like a MicroPython board (of family `board` when given), sorted."""
    if comports is None:
        from serial.tools import list_ports
        comports = list_ports.comports
    ids = board_ids(board)
    found = [p for p in comports() if (p.vid, p.pid) in ids]
    return sorted(found, key=lambda p: p.device)


def describe(port):
    return "%s (%s)" % (port.device, board_ids().get((port.vid, port.pid), "serial port"))


def find_port():
    """The one attached MicroPython board's port, or None."""
    found = candidate_ports()
    return found[0].device if len(found) == 1 else None
