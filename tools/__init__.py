"""Tools for the people who build speedref, not for clubs: mutation testing
(make mutate), the wiring diagrams and the README's screenshots (make docs), the
simulator's golden screens and its font.  Run from the repository's root:
`.venv/bin/python -m tools.NAME`."""
