"""speedref-flash: put the firmware on a board over USB.

    speedref-flash [--port PORT] [--board pico|esp32] [--dry-run] [--uplink FILE]

What it does, step by step, is host_tools/board/flash.py's.
"""
import argparse
import sys

from host_tools import jsonin
from host_tools.board import build, flash


def main(argv=None):
    ap = argparse.ArgumentParser(prog="speedref-flash", description=__doc__.splitlines()[0])
    ap.add_argument("--port", help="serial port (default: the one MicroPython board attached)")
    ap.add_argument("--board", choices=sorted(flash.BOARD_ARCH), help="board family (default: any)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands and sizes; touch no board")
    ap.add_argument("--firmware", default=str(build.FIRMWARE), help=argparse.SUPPRESS)
    ap.add_argument("--build", default=str(build.ROOT / "build" / "flash"),
                    help="where the compiled files go (default %(default)s)")
    ap.add_argument("--uplink", metavar="FILE",
                    help="a board with Wi-Fi: its Wi-Fi and MQTT broker settings (JSON, docs/hardware.md),"
                         " kept on its flash; installs umqtt.simple with mip")
    args = ap.parse_args(argv)
    try:
        return flash.flash(args)
    except flash.FlashError as e:
        return jsonin.complain("speedref-flash", str(e))


if __name__ == "__main__":
    sys.exit(main())
