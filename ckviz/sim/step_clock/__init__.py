"""The step clock (the micro-benchmark's spec 6 and 10): one dequeue call a step, acks after
`hold_steps`, arrivals between calls, on the engine's books. Opened by the clock factory
(`ckviz.sim.clocks`), never imported above sim/."""
