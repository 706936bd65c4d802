"""Time per interaction of the terminal app, and of a run to the end; before/after in one run.

    uv run python bench/tui_step.py [--keys 200 2000 10000] [--steps 40] [--discipline sfq]
                                    [--against main] [--to-end-keys 2000]
                                    [--to-end-disciplines baseline vtime sfq]
                                    [--stop-keys 10000] [--stop-after 3] [--stop-repeats 3]

For each key count, writes a temporary scenario (one heavy backlog and the rest light keys of
10 runs trickling in behind it; 2 runs past 40,001 keys), starts the embedded Redis and runs
the app headless at 160x50:
  step      `space` (one dequeue round): until the frame is on screen and rendered
  back      `left` (a recorded frame back), rendered
  replay    `right` over recorded frames (no driver work), rendered
  play      one play tick at the default speed (an instant), until rendered
  compare   `space` in compare mode (the discipline vs baseline), until rendered
Each is pressed --steps times; min and median per press (ms). Then `>` (run to the end) on a
ck_many_keys-shaped scenario of --to-end-keys keys (one heavy key of 2,000 runs, the rest
light keys of 2 runs), for each --to-end-disciplines: seconds until the last frame is shown.

Then, on the same shape at --stop-keys keys under sfq (a run to the end taking minutes):
`>`, --stop-after seconds of running, then
  esc       seconds until the run has stopped and its frame is shown
  q, ctrl+c, SIGTERM, SIGHUP (a closed terminal)
            seconds until the app has exited, and the keys it left on the server
each --stop-repeats times (min / median). SIGTERM and SIGHUP are sent to the app's own process
(it handles them as `ckviz` does); a closed terminal is also measured on a real `ckviz` in a
pseudo-terminal whose controlling side is closed (`hup-pty`: until the process is gone).

--against REV runs the same measurements on REV's ckviz (git archive into a temporary folder,
first on PYTHONPATH) in a child process, alternating with this tree's per key count so both
see the same load, and prints them side by side. Targets (issue 11): every interaction under
50 ms at 2,000 keys and 100 ms at 10,000; a 2,000-key run to the end under 10 s; (issue 23)
a step under 60 ms at 10,000 keys, esc under 1 s and quit under 2 s with every key deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from trees import ckviz_argv, env_of, trees_to_measure

SCENARIO = """\
description = "Bench: one heavy backlog and many light keys trickling in behind it."
env_limit = 16

[[keys]]
name = "heavy"
runs = 2000
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = {light}
runs = {runs}
arrival = "poisson"
rate_per_sec = 5
hold_ms_mean = 25
"""

TO_END = """\
description = "Bench: ck_many_keys at {keys} keys (one heavy key of 2,000 runs, light keys of 2)."
env_limit = 4

[[keys]]
name = "heavy"
runs = 2000
arrival = "immediate"
hold_ms_mean = 25

[[keys]]
name = "light"
count = {light}
runs = 2
arrival = "poisson"
rate_per_sec = 10
hold_ms_mean = 25
"""

ACTIONS = ("step", "back", "replay", "play", "compare")
SIZE = (160, 50)
ROOT = Path(__file__).resolve().parent.parent

Samples = dict[str, list[float]]


def light_runs(light: int) -> int:
    """10 runs per light key, fewer past 40,000 keys (a scenario has at most 500,000 runs)."""
    return 10 if light <= 40_000 else 2


# ---- the child: measure one tree's app ---------------------------------------------------


def timed_app(*args: Any, **kwargs: Any) -> Any:
    """The app, plus a signal when a frame has been handled (imported late: the child's
    ckviz is whichever tree PYTHONPATH names)."""
    from ckviz.tui.app import CkvizApp
    from ckviz.tui.messages import DriverFailed

    class TimedApp(CkvizApp):
        # Not another on_stepped: Textual calls every class's handler of a message, so an
        # override calling super() would handle each frame twice.
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            self.handled = asyncio.Event()

        def _settled(self) -> None:  # the frame is shown and no driver job is left
            super()._settled()
            self.handled.set()

        def on_driver_failed(self, message: DriverFailed) -> None:  # then CkvizApp's
            self.handled.set()

    return TimedApp(*args, **kwargs)


async def open_app(
    client: Any, path: Path, discipline: str, compare: bool, handle_signals: bool = False
) -> Any:
    from ckviz.sim.cell.session import new_namespace

    try:
        from ckviz.player.lanes import Lockstep
    except ImportError:  # a tree from before the lanes moved into the app's package
        from ckviz.lanes import Lockstep  # type: ignore[import-not-found,no-redef]

    compare_with = "baseline" if compare else None
    lanes = Lockstep(client, new_namespace())
    return timed_app(
        lanes, str(path), discipline, compare_with=compare_with, handle_signals=handle_signals
    )


def player_of(app: Any) -> Any:
    """What holds the recording, the error and `busy`: the app's player (trees from before the
    player: the app itself)."""
    return getattr(app, "player", app)


def play_tick(app: Any, instants: int) -> None:
    """One play tick's work, as the timer asks for it."""
    if hasattr(app, "player"):
        app.perform(app.player.advance(instant=True, count=instants))
    else:  # a tree from before the player
        app._advance(instant=True, count=instants)


async def until_shown(app: Any, pilot: Any) -> None:
    player = player_of(app)
    while player.busy or (player.recording.current is None and player.error is None):
        await pilot.pause()
    if player.error is not None:
        raise SystemExit(f"the app failed: {player.error}")


async def pressed(app: Any, act: Any, wait: bool) -> float:
    """Seconds from a press until its frame is on screen and the screen rendered."""
    app.handled.clear()
    start = time.perf_counter()
    act()
    if wait:
        await app.handled.wait()
    await repaints_delivered(app)
    app.screen._on_timer_update()  # render now, as the screen's update timer would
    if player_of(app).error is not None:
        raise SystemExit(f"the app failed: {player_of(app).error}")
    return time.perf_counter() - start


async def repaints_delivered(app: Any) -> None:
    """Let the widgets' repaint requests reach the screen: a widget asks with a message its own
    task handles, which then tells the screen with another. A press handled at once (back,
    replay) returns before any of them has run: rendering right after it rendered nothing, so
    its drawing went untimed."""
    nodes = [app.screen, *app.screen.walk_children()]
    for _ in range(100):
        await asyncio.sleep(0)
        if all(node._message_queue.empty() for node in nodes):
            return


async def interactions(client: Any, path: Path, steps: int, discipline: str) -> Samples:
    from ckviz.tui.app import SPEEDS

    samples: Samples = {action: [] for action in ACTIONS}
    app = await open_app(client, path, discipline, compare=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_shown(app, pilot)
            for _ in range(steps):
                samples["step"].append(await pressed(app, app.action_step, wait=True))
            for _ in range(steps):
                samples["back"].append(await pressed(app, app.action_step_back, wait=False))
            player = player_of(app)
            while not player.recording.live:
                samples["replay"].append(await pressed(app, app.action_step, wait=False))
            tick = SPEEDS[player.speed if player is not app else app._speed][1]
            for _ in range(steps):
                play = await pressed(app, lambda: play_tick(app, tick), True)
                samples["play"].append(play)
            await pilot.press("q")
    finally:
        app.close_now()
    app = await open_app(client, path, discipline, compare=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_shown(app, pilot)
            for _ in range(steps):
                samples["compare"].append(await pressed(app, app.action_step, wait=True))
            await pilot.press("q")
    finally:
        app.close_now()
    return samples


async def to_end(client: Any, path: Path, discipline: str) -> float:
    """Seconds from `>` until the run's last frame is on screen."""
    app = await open_app(client, path, discipline, compare=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until_shown(app, pilot)
            start = time.perf_counter()
            app.action_run_to_end()
            player = player_of(app)
            while player.busy or not player.recording.current.done:
                await asyncio.sleep(0.02)
                if player.error is not None:
                    raise SystemExit(f"the app failed: {player.error}")
            app.screen._on_timer_update()
            seconds = time.perf_counter() - start
            await pilot.press("q")
    finally:
        app.close_now()
    return seconds


STOP_WAYS = ("esc", "q", "ctrl+c", "SIGTERM", "SIGHUP")
GIVE_UP_S = 30.0  # a stop or quit slower than this is reported as this (and killed)


async def running_to_end(app: Any, pilot: Any, after: float) -> None:
    """The app shown, then `>` and `after` seconds of its run to the end."""
    await until_shown(app, pilot)
    await pilot.press("greater_than_sign")
    await asyncio.sleep(after)
    if not player_of(app).busy:
        raise SystemExit("the run to the end ended before it was stopped: use more keys")


async def stopped(client: Any, path: Path, way: str, after: float) -> dict[str, Any]:
    """Seconds from `way` until the run stopped (esc: its frame shown; else: the app exited),
    and the keys left on the server (quits only)."""
    import signal

    from textual import events

    app = await open_app(client, path, "sfq", compare=False, handle_signals=True)
    player = player_of(app)
    seconds = GIVE_UP_S
    try:
        async with app.run_test(size=SIZE) as pilot:
            await running_to_end(app, pilot, after)
            start = time.perf_counter()
            if way.startswith("SIG"):
                os.kill(os.getpid(), getattr(signal, way))
            else:  # posted, not pilot.press: that waits for the app, which may be quitting
                key = {"esc": "escape", "q": "q"}.get(way, way)
                app.post_message(events.Key(key, key if len(key) == 1 else None))
            while time.perf_counter() - start < GIVE_UP_S:
                if way == "esc" and not player.busy:
                    app.screen._on_timer_update()
                    seconds = time.perf_counter() - start
                    break
                if way != "esc" and app.return_code is not None:
                    seconds = time.perf_counter() - start
                    break
                await asyncio.sleep(0.005)
            if way == "esc" and seconds < GIVE_UP_S:
                with contextlib.suppress(Exception):  # a loaded machine: close_now cleans up
                    await pilot.press("q")
    finally:
        app.close_now()
    return {"seconds": seconds, "left": -1 if way == "esc" else keys_left(client, seconds)}


def keys_left(client: Any, seconds: float) -> int:
    """Keys on the bench's own server once the app is gone (none, if it cleaned up)."""
    return int(client.dbsize()) if seconds < GIVE_UP_S else -1


def hup_pty(url: str, path: Path, after: float) -> dict[str, Any]:
    """A real `ckviz` in a pseudo-terminal: `>`, `after` seconds, then its terminal closed.
    Seconds until the process is gone, and the keys it left."""
    import fcntl
    import pty
    import struct
    import termios

    import redis

    pid, fd = pty.fork()
    if pid == 0:  # the child: ckviz on the pseudo-terminal
        argv = ckviz_argv(str(path), "--discipline", "sfq")
        env = {**os.environ, "TERM": "xterm-256color"}
        os.execvpe(sys.executable, [*argv, "--redis-url", url], env)
    client = redis.Redis.from_url(url)
    try:
        os.set_blocking(fd, False)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
        started = time.monotonic()
        quiet_since = time.monotonic()
        while client.dbsize() == 0 or time.monotonic() - quiet_since < 2.0:
            time.sleep(0.1)  # started: keys written, and the screen quiet for 2 s
            if drain(fd):
                quiet_since = time.monotonic()
            if time.monotonic() - started > GIVE_UP_S:
                raise SystemExit("ckviz did not start in the pseudo-terminal")
        os.write(fd, b">")
        end = time.monotonic() + after
        while time.monotonic() < end:
            drain(fd)
            time.sleep(0.05)
        start = time.perf_counter()
        os.close(fd)
        seconds = GIVE_UP_S
        while time.perf_counter() - start < GIVE_UP_S:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                seconds = time.perf_counter() - start
                break
            time.sleep(0.005)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        return {"seconds": seconds, "left": keys_left(client, seconds)}
    finally:
        client.close()


def drain(fd: int) -> bool:
    """Read what the app wrote to its terminal; True if it wrote anything."""
    wrote = False
    with contextlib.suppress(BlockingIOError, OSError):
        while os.read(fd, 65536):
            wrote = True
    return wrote


def child(job: dict[str, Any]) -> dict[str, Any]:
    import ckviz
    from ckviz.store.server import open_server
    from ckviz.tui.launch import tune_gc

    tune_gc()  # as run_app does
    with (
        tempfile.TemporaryDirectory(prefix="ckviz-bench-") as tmp,
        open_server() as server,
        contextlib.closing(server.client()) as client,
    ):
        path = Path(tmp) / f"bench_{job['keys']}_keys.toml"
        if job["kind"] == "interactions":
            light = job["keys"] - 1
            runs = light_runs(light)
            path.write_text(SCENARIO.format(light=light, runs=runs), encoding="utf-8")
            coro = interactions(client, path, job["steps"], job["discipline"])
            return {"samples": asyncio.run(coro), "ckviz": ckviz.__file__}
        path.write_text(TO_END.format(keys=job["keys"], light=job["keys"] - 1), "utf-8")
        if job["kind"] == "stop":
            way, after = job["way"], job["after"]
            if way == "hup-pty":
                return {**hup_pty(server.url, path, after), "ckviz": ckviz.__file__}
            return {**asyncio.run(stopped(client, path, way, after)), "ckviz": ckviz.__file__}
        seconds = asyncio.run(to_end(client, path, job["discipline"]))
        return {"seconds": seconds, "ckviz": ckviz.__file__}


# ---- the parent: run the trees, print side by side ----------------------------------------


def run_child(tree: Path, job: dict[str, Any]) -> dict[str, Any]:
    env = env_of(tree)
    proc = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(job)],
        env=env,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed ({tree}):\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout.splitlines()[-1]))


def ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{1000 * min(values):6.1f} / {1000 * statistics.median(values):6.1f}"


def target_s(keys: int) -> float:
    """Issue 11's targets: 50 ms an interaction up to 2,000 keys, 100 ms at 10,000."""
    return 0.050 if keys <= 2000 else 0.100


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, nargs="*", default=[200, 2000, 10000])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--discipline", default="sfq")
    parser.add_argument("--against", metavar="REV", help="also measure REV's code (e.g. main)")
    parser.add_argument("--to-end-keys", type=int, default=2000)
    parser.add_argument("--to-end-disciplines", nargs="*", default=["baseline", "vtime", "sfq"])
    parser.add_argument("--stop-keys", type=int, default=10000, help="0: no esc / quit")
    parser.add_argument("--stop-after", type=float, default=3.0)
    parser.add_argument("--stop-repeats", type=int, default=3)
    parser.add_argument("--stop-ways", nargs="*", default=[*STOP_WAYS, "hup-pty"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    with tempfile.TemporaryDirectory(prefix="ckviz-bench-tree-") as tmp:
        trees = trees_to_measure(args.against, Path(tmp))
        return report(trees, args)


def report(trees: dict[str, Path], args: argparse.Namespace) -> int:
    names = list(trees)
    if args.keys:
        print(
            f"ms per press, min / median of {args.steps} presses; app at {SIZE[0]}x{SIZE[1]}, "
            f"{args.discipline}; compare: {args.discipline} vs baseline"
        )
        print(f"{'keys':>6} {'action':<8} " + " ".join(f"{n:>17}" for n in names))
    met = True
    for keys in args.keys:
        job = {
            "kind": "interactions",
            "keys": keys,
            "steps": args.steps,
            "discipline": args.discipline,
        }
        runs = {name: run_child(tree, job) for name, tree in trees.items()}
        if keys == args.keys[0]:
            print("  " + ", ".join(f"{n}: {r['ckviz']}" for n, r in runs.items()))
        results = {name: run["samples"] for name, run in runs.items()}
        for action in ACTIONS:
            cells = " ".join(f"{ms(results[n][action]):>17}" for n in names)
            print(f"{keys:>6} {action:<8} {cells}", flush=True)
            mine = results[names[-1]][action]
            met &= not mine or statistics.median(mine) < target_s(keys)
    if args.to_end_disciplines:
        print(f"\nrun to the end (>), {args.to_end_keys} keys, seconds until the last frame shows")
    for discipline in args.to_end_disciplines:
        job = {"kind": "to_end", "keys": args.to_end_keys, "discipline": discipline}
        seconds = {name: run_child(tree, job)["seconds"] for name, tree in trees.items()}
        cells = " ".join(f"{seconds[n]:>17.1f}" for n in names)
        print(f"{'':>6} {discipline:<8} {cells}", flush=True)
    if args.stop_keys:
        met &= stops(trees, args)
    return 0 if met else 1


def stops(trees: dict[str, Path], args: argparse.Namespace) -> bool:
    """esc and every way of quitting during a run to the end, side by side; targets met?"""
    names = list(trees)
    print(
        f"\nstopping a run to the end (sfq, {args.stop_keys} keys, {args.stop_after:g} s in): "
        f"seconds min / median of {args.stop_repeats}, keys left (max)"
    )
    met = True
    for way in args.stop_ways:
        job = {"kind": "stop", "keys": args.stop_keys, "way": way, "after": args.stop_after}
        seconds: dict[str, list[float]] = {name: [] for name in names}
        left: dict[str, int] = dict.fromkeys(names, 0)
        for _ in range(args.stop_repeats):
            for name, tree in trees.items():
                run = run_child(tree, job)
                seconds[name].append(run["seconds"])
                left[name] = max(left[name], run["left"]) if run["left"] >= 0 else -1
        cells = " ".join(f"{stop_cell(seconds[n], left[n], way):>22}" for n in names)
        print(f"{way:<8} {cells}", flush=True)
        mine = seconds[names[-1]]
        met &= max(mine) < (1.0 if way == "esc" else 2.0) and (way == "esc" or left[names[-1]] == 0)
    return met


def stop_cell(seconds: list[float], left: int, way: str) -> str:
    shown = f"{min(seconds):.2f} / {statistics.median(seconds):.2f} s"
    if max(seconds) >= GIVE_UP_S:
        shown = f">{GIVE_UP_S:g} s"
    if way == "esc":
        return shown
    return shown + (", ? keys" if left < 0 else f", {left} keys")


if __name__ == "__main__":
    sys.exit(main())
