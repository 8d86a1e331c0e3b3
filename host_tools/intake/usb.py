"""The USB reader: a board's serial port, read forever into a line core
(host_tools/intake/lines.py), reopened when the cable comes back.

At every connect the board is asked for the records on its flash
({"cmd": "dump"}: docs/serial-protocol.md), so a game that ended while no
laptop listened arrives then; the line core stores each one once.
"""
import time

from host_tools.board.ports import find_port

DUMP_COMMAND = b'{"cmd": "dump"}\n'
BAUD = 115200


def open_serial(port):
    import serial
    return serial.Serial(port, BAUD, timeout=0.2)


def run(core, port=None, opener=open_serial, finder=find_port, sleep=time.sleep,
        clock=time.monotonic, idle_exit=None, retry_s=1.0):
    """Read forever (or until `idle_exit` seconds pass with no data), reconnecting.

    Returns when idle_exit is reached; KeyboardInterrupt propagates to main().
    """
    import serial
    lost = (serial.SerialException, OSError)
    last_data = clock()
    said = None
    while True:
        if idle_exit is not None and clock() - last_data > idle_exit:
            return
        dev = port or finder()
        if not dev:
            if said != "none":
                core.err("waiting for a board (none, or several: use --port) ...")
                said = "none"
            sleep(retry_s)
            continue
        try:
            ser = opener(dev)
        except lost as e:
            if said != "open":
                core.err("cannot open %s (%s); retrying" % (dev, e))
                said = "open"
            sleep(retry_s)
            continue
        said = None
        core.out("connected to %s; asking the device for the records on its flash" % dev)
        try:
            ser.write(DUMP_COMMAND)
            while True:
                data = ser.read(4096)
                if data:
                    last_data = clock()
                    core.feed(data)
                elif idle_exit is not None and clock() - last_data > idle_exit:
                    return
        except lost as e:
            core.disconnected()
            core.err("lost %s (%s); reconnecting" % (dev, e))
        finally:
            try:
                ser.close()
            except lost:
                pass
        sleep(retry_s)
