"""One widget per pane; each is handed a snapshot and a palette, and never calls Redis."""
