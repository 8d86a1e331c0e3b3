# The referee app: pure state machines that take (event, now_us), draw into a
# 128x64 frame buffer and ask for sounds.  No sleeps, no hardware imports.
