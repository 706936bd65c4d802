"""The discipline pane: its order and state, and the consumers line."""
