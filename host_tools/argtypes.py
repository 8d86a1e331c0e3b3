"""Argument types the command-line tools share: each turns the text of an
option into its value or raises argparse's error, which argparse prints as
one line with the tool's usage (exit 2)."""
import argparse
import math


def seconds(text):
    """--timeout: a finite number of seconds above 0."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError("%r is not a number of seconds above 0" % text)
    return v


def file_name(text):
    """A file to write: a name, not an empty string."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty file name")
    return text
