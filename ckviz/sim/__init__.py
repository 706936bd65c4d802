"""The engine and the two clocks that drive it, and the cell a run lives in.

Above sim/, code imports only three surfaces: the engine's (`ckviz.sim.engine`: a run as
`Engine` and `Outcome`), the clock factory (`ckviz.sim.clocks`: `open_engine`, which
disciplines each clock runs) and the cell (`ckviz.sim.cell`: the server, the namespace, what a
workload needs and whether it can finish). An import-linter contract holds this.
"""
