# Freezing speedref into a custom MicroPython build (bytecode runs from
# flash, not from the heap):
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/speedref/firmware/manifest.py
# main.py stays a file on the board's filesystem (copy it with mpremote).
# See docs/hardware.md.
include("$(PORT_DIR)/boards/manifest.py")  # the port's own frozen modules
package("speedref", opt=3)
