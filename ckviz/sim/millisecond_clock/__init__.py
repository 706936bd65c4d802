"""The logical-millisecond clock (SPEC 5): instants of release, arrive, serve and close, their
trips and outbox, what rides at a trip's end, and what only this clock knows of its moment.
Opened by the clock factory (`ckviz.sim.clocks`), never imported above sim/."""
