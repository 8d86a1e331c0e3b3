# The hardware edge: board pin maps, slap capture, display, buzzer.
# Only this package (and main.py) imports `machine`.
