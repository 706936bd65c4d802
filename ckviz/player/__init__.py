"""The app's player, without Textual: frame sources (a simulated run's lanes, a live queue's
refreshes), the tape over them (step, back, forward, play), the moves and jumps, and what a
run's player adds (its filter, sampling, recording, export). The UI in `ckviz.tui` reads what
it produces; it never imports Textual or the UI (import-linter contracts)."""
