"""The lines around the panes: the status lines (a run's, the watch's), the footer, the `/`
filter bar, the legend."""
