"""Records coming in, each checked by the rules and stored once: the line core
and the ways into it (the USB reader, saved files, the MQTT listener)."""
