# Coin: a dummy game that exists only for tests/test_dummy_game.py, which
# registers it in a temporary registry to show that a game is one registry
# entry plus its own files (docs/architecture.md, "Adding a game").
