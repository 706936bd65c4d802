"""The cells the app steps: one lane per discipline, kept level in logical time.

Textual-free on purpose (the app's model, over metrics; lint-imports keeps Textual out): the
app calls a `LaneSource` on its single driver thread and only ever looks at its `Frame`s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

import redis

from ckviz.disciplines.registry import check_treatment
from ckviz.errors import UsageError
from ckviz.fairness import OwnLimit
from ckviz.fairness_so_far import SoFar
from ckviz.model.history import Trend
from ckviz.model.lineup import Lineup
from ckviz.model.matrix import Treatment
from ckviz.model.snapshot import FULL_VIEW, Snapshot, ViewRequest
from ckviz.model.tenants import is_one_grain
from ckviz.player.frames import Frame, FrameSource, Setup
from ckviz.player.lane_fairness import LaneFairness
from ckviz.player.progress import Heard
from ckviz.player.sampling import Samples
from ckviz.sim.clocks import (
    EngineOptions,
    disciplines_on,
    open_engine,
    ranks_every_attempt,
    runs_on,
)
from ckviz.sim.engine import Engine, Outcome, TrendRecorder, roomy_young_generation


class LaneSource(FrameSource, Protocol):
    """A simulated run's frames: lanes on Redis (`Lockstep`), or frames made by hand."""

    def start(self, setup: Setup) -> list[Frame]:
        """Close what is open and start `setup`: its first frame."""
        ...

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        """Step every lane to its end without a frame per step, checking `cancelled` between
        chunks (and telling `heard` where the lanes stand); the frames kept on the way and the
        one of where they stopped (none if `closing` then: a quit)."""
        ...

    def outcomes(self) -> list[Outcome]:
        """Each lane's run so far, as the results file counts it (the export's)."""
        ...


def _treatment(setup: Setup, discipline: str) -> Treatment:
    """What a lane runs: `discipline`, or the flag's mix (which names each consumer's
    discipline), on the scenario's consumers (a scenario's mix: Treatment.facing)."""
    given = setup.consumers
    if isinstance(given, Lineup):
        return Treatment.mixed(given)
    facing = Treatment(discipline=discipline, consumers=given).facing(setup.scenario.mix)
    if facing.lineup is not None:
        check_treatment(facing, f"scenario '{setup.scenario.name}': consumers")
    return facing


class Lane:
    """One open cell (an engine on its scenario's clock, in its own Redis namespace) and its
    running fairness figures."""

    def __init__(self, client: redis.Redis, setup: Setup, discipline: str, prefix: str) -> None:
        clock = setup.scenario.clock
        treatment = _treatment(setup, discipline)
        for name in treatment.disciplines:
            if runs_on(name, setup.scenario):
                continue
            raise UsageError(
                f"discipline '{name}' does not run on the {clock.name} scenario "
                f"'{setup.scenario.name}' (choose from {', '.join(disciplines_on(clock))})"
            )
        self._stack = contextlib.ExitStack()
        # the app asks a dequeue in Redis what it looked at (headless runs never do)
        options = EngineOptions(
            check_invariants=setup.check_invariants,
            trace=True,
            consumers=setup.consumers if isinstance(setup.consumers, int) else None,
            history=True,
        )
        cell = open_engine(client, setup.scenario, setup.seed, treatment, prefix, options)
        self.driver: Engine = self._stack.enter_context(cell)
        self.prefix = prefix
        facts = self.driver.outcome()  # the caps and holds, as the results weigh them
        cap = facts.per_key_cap
        own = OwnLimit(cap, facts.holds) if cap is not None else None
        scenario = setup.scenario
        owner = scenario.tenant_of()
        if owner is not None and (is_one_grain(owner) or facts.steps is not None):
            owner = None  # every tenant one key: the key grain says it all (as the results)
        weights = setup.scenario.weights()
        self._fairness = LaneFairness(self.driver, weights, own, clock.per_call, owner)
        self._dequeued = 0  # dequeues at the last frame: what the next frame took is after it
        self._taken_from = 0  # the last frame's: a frame made again shows the same step
        self._trend = TrendRecorder()

    def snapshot(
        self, view: ViewRequest = FULL_VIEW, again: bool = False
    ) -> tuple[Snapshot, SoFar, Trend | None]:
        """A frame of now; `again`: the last frame made again (another view), nothing new
        taken since, so its "this step" is still the last frame's."""
        if not again:
            self._taken_from = self._dequeued
        events = self.driver.events
        if len(events) > self._taken_from:  # the this-step line's winner shows its state
            view = replace(view, also=(*view.also, events[self._taken_from].key))
        snap = replace(self.driver.snapshot(view), taken_from=self._taken_from)
        self._dequeued = snap.dequeued
        now = self._fairness.now()
        under, over = self._fairness.tenants()
        fairness = replace(now, tenant=under, tenant_over=over)
        trend = self._trend.record(snap.t, fairness.attainment, fairness.jain)
        return snap, fairness, trend

    def instant_unwatched(self, cancelled: Callable[[], bool]) -> None:
        """The rest of the instant, as nobody looks (a run to the end). A rescoring
        discipline's instant is many serve attempts, each ranking and rewriting every key of
        ckIndex (tens of ms apiece at 10,000 keys): `cancelled` is asked between them, so esc
        is heard within one. Its dequeues never ride a later trip (its takes are never sure),
        so round by round it steps as the driver's own instant would. The frame it ends on
        says what its last instant took, not every run since the frame before the move."""
        driver = self.driver
        self._dequeued = len(driver.events)
        if not ranks_every_attempt(driver):
            driver.step_instant(watched=False)
            return
        start = driver.t
        driver.step()
        while not driver.done and driver.instant_open and driver.t == start and not cancelled():
            self._dequeued = len(driver.events)
            driver.step()

    def close(self) -> None:
        """Close the cell: its keys are deleted (open_engine's promise)."""
        self._stack.close()


class Lockstep:
    """The lanes of the current setup; a lane never steps while another is behind it in time."""

    def __init__(self, client: redis.Redis, namespace: str) -> None:
        self.client = client
        self.namespace = namespace
        self.lanes: list[Lane] = []
        self.setup: Setup | None = None
        self.view = FULL_VIEW
        self._generation = 0

    def start(self, setup: Setup) -> list[Frame]:
        """Close whatever is open and open one fresh lane per discipline: the first frame."""
        self.close()
        self.setup = setup
        self._generation += 1
        try:
            for i, discipline in enumerate(setup.disciplines):
                prefix = f"{self.namespace}{self._generation}-{i}:"
                self.lanes.append(Lane(self.client, setup, discipline, prefix))
        except BaseException:
            self.close()
            raise
        frame = self.frame()
        return [] if frame is None else [frame]

    def advance(self, instant: bool, count: int = 1) -> list[Frame]:
        """`count` rounds (or instants): a frame after each, until every lane is done."""
        step = self.step_instant if instant else self.step_round
        frames = []
        for _ in range(count):
            frame = step()
            if frame is None:
                break
            frames.append(frame)
        return frames

    def step_round(self) -> Frame | None:
        """One dequeue round in every lane that is not ahead; None once all are done."""
        behind = self._behind()
        for lane in behind:
            lane.driver.step()
        return self.frame() if behind else None

    def step_instant(self) -> Frame | None:
        """Every lane that is not ahead steps until its clock moves; None once all are done."""
        behind = self._behind()
        for lane in behind:
            lane.driver.step_instant()
        return self.frame() if behind else None

    def _behind(self) -> list[Lane]:
        live = [lane for lane in self.lanes if not lane.driver.done]
        if not live:
            return []
        earliest = min(lane.driver.t for lane in live)
        return [lane for lane in live if lane.driver.t == earliest]

    def frame(self, again: bool = False) -> Frame | None:
        if self.setup is None or not self.lanes:
            return None
        view = self.view
        lanes = [lane.snapshot(view, again) for lane in self.lanes]
        return Frame(
            self.setup,
            tuple(s for s, _, _ in lanes),
            tuple(f for _, f, _ in lanes),
            tuple(t for _, _, t in lanes),
        )

    def set_view(self, view: ViewRequest) -> None:
        self.view = view

    def reframe(self) -> list[Frame]:
        frame = self.frame(again=True)
        return [] if frame is None else [frame]

    def run_to_end(
        self,
        cancelled: Callable[[], bool],
        closing: Callable[[], bool] = lambda: False,
        heard: Heard | None = None,
    ) -> list[Frame]:
        """Lanes step instants in lockstep as `advance` would, building no snapshot on the
        way (a driver steps the same whether or not it is looked at). `cancelled` is asked
        before every instant, and between a rescoring discipline's serve attempts: reading a
        flag costs nothing beside a round trip, and one such attempt at 10,000 keys takes tens
        of ms, so esc stops it at once (asked every 256 instants, it took half a minute).
        Stopped by a quit (`closing`), no frame is made: nobody will see it, and at 10,000
        keys it costs a tenth of a second or more before the keys can be deleted. `heard`
        hears where the lanes stand as often as `cancelled` is asked (the progress line)."""
        kept, last = Samples(), list[Frame]()  # frames along the way: the scrubber's after it
        asked = cancelled if heard is None else self._telling(cancelled, heard)
        with roomy_young_generation():  # as a headless run steps (at 10,000 keys: a third)
            while not asked():
                behind = self._behind()
                if not behind:
                    break
                for lane in behind:
                    lane.instant_unwatched(asked)
                due = kept.due(min(ln.driver.t for ln in self.lanes))
                last = self._framed() if due else []
                kept.keep(last)
        return [] if closing() else kept.ending(last or self._framed())

    def where(self) -> tuple[int, int]:
        """The slowest lane's time and the runs out over every lane (no frame made)."""
        drivers = [lane.driver for lane in self.lanes]
        return min((d.t for d in drivers), default=0), sum(len(d.events) for d in drivers)

    def _telling(self, cancelled: Callable[[], bool], heard: Heard) -> Callable[[], bool]:
        """`cancelled`, telling `heard` where the lanes stand each time it is asked."""

        def asked() -> bool:
            heard(*self.where())
            return cancelled()

        return asked

    def _framed(self) -> list[Frame]:
        frame = self.frame()
        return [] if frame is None else [frame]

    def outcomes(self) -> list[Outcome]:
        return [lane.driver.outcome() for lane in self.lanes]

    def close(self) -> None:
        """Close every lane (keys deleted); safe to call twice."""
        lanes, self.lanes = self.lanes, []
        for lane in lanes:
            lane.close()
