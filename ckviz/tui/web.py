"""The app in a browser: textual-serve's web server, started and stopped the way ckviz needs.

Each browser that connects gets its own app process (textual-serve starts `command` for it,
under Textual's web driver); that process opens its own workspace, as the terminal app does.
Stopping the server (SIGINT, SIGTERM, SIGHUP) first asks every app process to quit, so each
sweeps its keys and stops its embedded Redis, and waits for them; only an app process still
running after QUIT_GRACE_S is terminated, then killed."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Any

from aiohttp import web
from aiohttp.web_runner import GracefulExit
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ckviz.errors import UsageError

QUIT_GRACE_S = 10.0  # an app process's time to stop its run, sweep its keys, stop its server
KILL_GRACE_S = 3.0  # after SIGTERM, before SIGKILL
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class AppServer(Server):
    """textual-serve's server that keeps track of its app processes and stops them first."""

    def __init__(self, command: str, host: str, port: int, title: str) -> None:
        super().__init__(command, host=host, port=port, title=title)
        self.sessions: set[asyncio.Task[Any]] = set()
        self.processes: set[asyncio.subprocess.Process] = set()

    def initialize_logging(self) -> None:
        """Warnings and errors only: no line per request while a meeting watches."""
        logging.basicConfig(level=logging.WARNING, format="ckviz serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        print(f"ckviz serve: open {self.public_url} in a browser (ctrl+c stops)", flush=True)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One browser's session, as textual-serve runs it, with its task and app process
        noted so that a stop can end it."""
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        websocket = web.WebSocketResponse(heartbeat=15)
        width = to_int(request.query.get("width", ""), 80)  # the browser's terminal, in cells
        height = to_int(request.query.get("height", ""), 24)
        service: AppSession | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            service = AppSession(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=close,
                download_manager=self.download_manager,
            )
            self.processes.add(await service.open(width, height))
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:  # the server stops: the app is told to quit below
            await websocket.close()
        finally:
            self.sessions.discard(task)
            if service is not None:
                await service.stop()  # sends the app `quit`, waits for its output to end
        return websocket

    async def on_shutdown(self, app: web.Application) -> None:
        """Cancelled, a session closes its socket and sends its app `quit` (textual-serve's
        own path); the app stops, sweeps and exits. Stragglers are terminated, then killed."""
        sessions = list(self.sessions)
        for task in sessions:
            task.cancel()
        if sessions:
            await asyncio.wait(sessions, timeout=QUIT_GRACE_S)
        await stop_processes(self.processes)

    def serve(self, debug: bool = False) -> None:
        """Serve until a stop signal (SIGHUP too: a closed terminal stops the server)."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.request_exit)
        web.run_app(
            self._make_app(),
            host=self.host,
            port=self.port,
            handle_signals=False,
            loop=loop,
            print=None,
            access_log=None,
        )

    def request_exit(self) -> None:
        raise GracefulExit


class AppSession(AppService):
    """textual-serve's app service, handing back the process it starts (the server waits
    for every one at the stop, including one whose browser already left)."""

    async def open(self, width: int, height: int) -> asyncio.subprocess.Process:
        await self.start(width, height)
        assert self._process is not None
        return self._process


async def stop_processes(processes: set[asyncio.subprocess.Process]) -> None:
    """Wait for every app process to exit; terminate, then kill, any that outlives its grace."""
    for grace, stop in (
        (QUIT_GRACE_S, None),
        (KILL_GRACE_S, signal.SIGTERM),
        (KILL_GRACE_S, signal.SIGKILL),
    ):
        running = [p for p in processes if p.returncode is None]
        if not running:
            return
        if stop is not None:
            print(
                f"ckviz serve: {len(running)} app process(es) still running: {stop.name}",
                file=sys.stderr,
            )
            for process in running:
                process.send_signal(stop)
        await asyncio.wait([asyncio.create_task(p.wait()) for p in running], timeout=grace)


def serve(command: str, host: str, port: int, title: str) -> None:
    """Serve the app `command` starts at http://host:port until stopped."""
    try:
        AppServer(command, host, port, title).serve()
    except OSError as exc:  # the port taken, or an address not of this machine
        raise UsageError(f"serve: cannot listen on {host} port {port}: {exc.strerror}") from None
