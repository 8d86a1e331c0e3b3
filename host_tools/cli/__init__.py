"""The command lines (speedref-score, -flash, -log, -roster, -results): each
parses its arguments, calls the wings below and prints; nothing imports them."""
