"""What ckviz runs when not told otherwise: every default name in one place (no imports)."""

from __future__ import annotations

DEFAULT_SCENARIO = "ck_skew"  # the terminal app's scenario
DEFAULT_DISCIPLINE = "sfq"  # the terminal app's discipline
DEFAULT_SEEDS = ("seed-a", "seed-b", "seed-c")  # a matrix's seeds
DEFAULT_SEED = DEFAULT_SEEDS[0]  # the terminal app's seed
DEFAULT_MATRIX = "default"  # the matrix --headless runs
ROOT_PREFIX = "ckviz"  # the root of ckviz's key namespace on a server (--prefix)
DEFAULT_OUT = "results.json"  # where --headless writes its results
DEFAULT_CONSUMERS = 1  # consumers taking turns at the dequeue (--consumers)
MAX_CONSUMERS = 64  # each consumer holds its own connection: more is a typo, not a test
