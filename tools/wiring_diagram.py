"""Wiring diagrams drawn from the board files themselves.

Every pin in the picture is read from `speedref/hw/board_<name>.py` (the
same module the firmware wires itself from), so a pin moved in code moves in
the picture; tests/test_wiring_diagram.py fails when a committed picture and
its board file disagree.  Drawn with schemdraw (host side only) as SVG:

    .venv/bin/python -m tools.wiring_diagram            # docs/wiring-pico.svg, docs/wiring-esp32.svg
    .venv/bin/python -m tools.wiring_diagram --check    # exit 1 when a picture is out of date

What is drawn: the board as one block with the pins in use; each button
(pads P1..P4, UP, DOWN, OK, BACK) from its GPIO to GND (the internal pull-up
is the only other part); the OLED's SDA and SCL; the piezo through 100 ohm;
each optional pad LED through 330 ohm (docs/hardware.md, "Wiring").
"""
import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOARDS = ("pico", "esp32")
BUTTONS = ("P1", "P2", "P3", "P4", "UP", "DOWN", "OK", "BACK")


def pin_name(board, gpio):
    """How the board's own silk screen names a GPIO: GP2 on a Pico, IO16 on an ESP32 DevKit."""
    return ("GP%d" if board.NAME == "pico" else "IO%d") % gpio


def connections(board):
    """[(GPIO, what is wired to it, part)] in the order the picture lists
    them, every pin read from the board module."""
    out = [(g, BUTTONS[i], "button") for i, g in enumerate(board.BUTTON_PINS)]
    out.append((board.I2C_SDA, "OLED SDA", "oled"))
    out.append((board.I2C_SCL, "OLED SCL", "oled"))
    out.append((board.BUZZER_PIN, "buzzer", "buzzer"))
    out += [(g, "LED P%d" % (i + 1), "led") for i, g in enumerate(board.PAD_LED_PINS)]
    return out


def load_board(name):
    if name not in BOARDS:
        raise ValueError("no board %r (expected one of %s)" % (name, ", ".join(BOARDS)))
    return importlib.import_module("speedref.hw.board_" + name)


def draw(name):
    """The board's wiring diagram as SVG text."""
    import schemdraw
    import schemdraw.elements as elm
    schemdraw.use("svg")
    board = load_board(name)
    conns = connections(board)
    title = {"pico": "Raspberry Pi Pico", "esp32": "ESP32 DevKit"}[name]
    n = len(conns)
    step = 1.4  # drawing units between two pins: room for a part's label
    pins = [elm.IcPin(name=pin_name(board, g), side="right") for g, _, _ in conns]
    pins.reverse()  # an Ic lists a side's pins from the bottom up
    with schemdraw.Drawing(show=False) as d:
        d.config(fontsize=11, unit=2, margin=1.5)
        ic = elm.Ic(pins=pins, size=(3.2, step * (n + 1)), pinspacing=step, edgepadH=step / 2,
                    label=title, lblsize=13, lblloc="top")
        d += ic
        rail = None  # x of the GND rail, right of every part
        ys = []
        for g, what, part in conns:
            a = getattr(ic, pin_name(board, g))
            d += elm.Line().right(1.0).at(a)
            if part == "oled":
                d += elm.Line().right(4.5)
                d += elm.Dot(open=True).label("to the OLED's " + what.split()[1], loc="right")
                continue
            d += elm.Line().right(0.6).label(what, loc="top", ofst=0.1)
            if part == "button":
                d += elm.Button().right(1.8)
                d += elm.Line().right(2.9)
            elif part == "buzzer":
                d += elm.Resistor().right(1.8).label("100", loc="bottom")
                d += elm.RBox(w=1.6, h=0.6).right(2.2).label("piezo", loc="center", fontsize=9)
                d += elm.Line().right(0.7)
            else:
                d += elm.Resistor().right(1.8).label("330", loc="bottom")
                d += elm.LED().right(1.6)
                d += elm.Line().right(1.3)
            rail = d.here[0]
            ys.append(d.here[1])
            d += elm.Dot()
        d += elm.Line().at((rail, max(ys))).to((rail, min(ys) - 1.0))
        d += elm.Ground()
        d += elm.Label().at((rail + 0.3, max(ys) + 0.5)).label("GND", loc="right")
        d += elm.Label().at((ic.center[0] - 1.6, min(ys) - 2.0)).label(
            "OLED: VCC to 3V3, GND to GND. Buttons use the internal pull-ups.", loc="right")
        svg = d.get_imagedata("svg")
    return svg.decode() if isinstance(svg, bytes) else svg


def path_of(name):
    return ROOT / "docs" / ("wiring-%s.svg" % name)


def _shown(p):
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.wiring_diagram",
                                 description="Draw the wiring diagrams in docs/ from the board files.")
    ap.add_argument("--check", action="store_true", help="only say whether the pictures are up to date (exit 1 if not)")
    args = ap.parse_args(argv)
    stale = []
    for name in BOARDS:
        svg = draw(name)
        p = path_of(name)
        if args.check:
            if not p.exists() or p.read_text() != svg:
                stale.append(_shown(p))
        else:
            p.write_text(svg)
            print("wrote", _shown(p))
    if stale:
        print("out of date (run python -m tools.wiring_diagram): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
