# The pads' lights: one LED per pad on an output pin (board.PAD_LED_PINS,
# optional).  The app works out what to light (App.lights, bit p = pad p);
# the device loop hands the mask here when it changes.  show() only sets
# pin levels: nothing is allocated.


class PadLeds:
    def __init__(self, pins):
        self.pins = pins  # machine.Pin outputs (or virtual ones), index = pad
        self.mask = 0
        for p in pins:
            p.value(0)

    def show(self, mask):
        self.mask = mask
        for i in range(len(self.pins)):
            self.pins[i].value((mask >> i) & 1)


def make(machine, pins):
    """PadLeds on the board's PAD_LED_PINS (each an output, dark)."""
    Pin = machine.Pin
    return PadLeds([Pin(n, Pin.OUT, value=0) for n in pins])
