"""One screen per mode (single, compare), plus the help and picker modals."""
