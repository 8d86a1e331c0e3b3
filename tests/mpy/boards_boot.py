"""Boot the real wiring (speedref/wiring.build) on the fake machine, for one board.

    micropython tests/mpy/boards_boot.py esp32|pico|pico-irq ROOT

Prints the boot log line, then presses pads P1 and P2 within one handler
latency and OK, steps the device, and prints what the input path delivered
(and which of the boot's own modules the build left loaded).
"""
import sys
import time
import machine
from speedref import wiring
from speedref.hw import boards

which, root = sys.argv[1], sys.argv[2]
board = boards.select("Generic ESP32 module with ESP32" if which == "esp32"
                      else "Raspberry Pi Pico with RP2040")
boards.uname_machine = lambda: "test"  # the boot line's chip
if which == "pico-irq":
    board.CAPTURE = "irq"
dev = wiring.build(board, root=root)
# the boot's own modules, still loaded once the device is built
kept = [m for m in ("speedref.wiring", "speedref.hw.boards", board.__name__) if m in sys.modules]
pads = board.BUTTON_PINS
got = []


class Spy:
    # wraps the app's press/release to see what the decoder delivered
    def __init__(self, app):
        self.app = app

    def press(self, b, t):
        got.append(("press", b))
        self.app.press(b, t)

    def release(self, b, t):
        got.append(("release", b))
        self.app.release(b, t)


dev.inputs.app = Spy(dev.inputs.app)
t = time.ticks_us()
dev.step(t)
if which != "pico":
    # both pads down before the first handler runs: one snapshot, a tie
    machine.set_levels((1 << pads[0]) | (1 << pads[1]), 0)
    machine.pin(pads[0]).handler(machine.pin(pads[0]))
    machine.pin(pads[6]).drive(0)  # OK down
else:
    # the state machine samples every button: it pushes the word for P1 and
    # P2 down in one sample, then OK down (it pushes nothing unless the
    # capture started it), and its interrupt moves each into the ring
    import rp2
    from speedref.hw import pio_capture as pc
    sm = rp2.StateMachine.instances[0]

    def push(k, levels):
        return sm._push_rx(((pc.COUNT_MASK - k) | levels << pc.COUNT_BITS) << pc.LEVEL_SHIFT)
    print("pio pushed", push(100, 0xFF & ~0b11), push(200, 0xFF & ~0b1000011))
dev.step(time.ticks_us())
time.sleep_ms(15)  # past the capture's 10 ms debounce lockout (real clock)
if which != "pico":
    machine.pin(pads[6]).drive(1)
else:
    push(300, 0xFF & ~0b11)  # OK up
dev.step(time.ticks_us())
if hasattr(dev.log, "flush"):
    dev.log.flush()  # the ESP32's queued lines (the boot line), all out before the prints
print("log", type(dev.log).__name__)
print("ring", dev.ring.head, "dropped", dev.ring.dropped)
print("got", got)
print("i2c_timeout", dev.display.drv.i2c.timeout)
print("kept", " ".join(kept) or "-")
