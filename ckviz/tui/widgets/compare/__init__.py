"""Compare mode's panes: the wait CDF and the per-key wait comparison."""
