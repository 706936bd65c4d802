"""The app in a browser: textual-serve's web server, started and stopped the way ckviz needs.

Each browser that connects gets its own app process (textual-serve starts `command` for it,
under Textual's web driver); that process opens its own workspace, as the terminal app does.
Only the page's own origin, on the address served, with the run's token, opens a session
(tui/web_access.py), and at most `max_sessions` run at once. Stopping the server (SIGINT,
SIGTERM, SIGHUP) first asks every app process to quit, so each sweeps its keys and stops its
embedded Redis, and waits for them; only an app process still running after QUIT_GRACE_S is
terminated, then killed."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from ckviz.errors import UsageError, echo
from ckviz.tui.web_access import Access

QUIT_GRACE_S = 10.0  # an app process's time to stop its run, sweep its keys, stop its server
KILL_GRACE_S = 3.0  # after SIGTERM, before SIGKILL
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PAGE = Path(__file__).with_name("serve_page")  # textual-serve's page, as ckviz serves it
MAX_COLUMNS, MAX_ROWS = 500, 200  # a browser's terminal, clamped: a 3000x3000 app is no use
log = logging.getLogger("ckviz.serve")


class AppServer(Server):
    """textual-serve's server that checks who connects, keeps track of its app processes and
    stops them first."""

    def __init__(
        self, command: str, access: Access, title: str, max_sessions: int, font_size: int
    ) -> None:
        super().__init__(command, host=access.bind, port=access.port, title=title)
        self.templates_path = PAGE
        self.access = access
        self.max_sessions = max_sessions
        self.font_size = font_size
        self.sessions: set[asyncio.Task[Any]] = set()
        self.processes: set[asyncio.subprocess.Process] = set()
        self.stopped_by: signal.Signals | None = None

    def initialize_logging(self) -> None:
        """Warnings and errors only: no line per request while a meeting watches."""
        logging.basicConfig(level=logging.WARNING, format="ckviz serve: %(message)s")

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.check_host])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        app.on_shutdown.append(self.on_shutdown)
        return app

    @web.middleware
    async def check_host(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Every request names the address served (a rebound name does not)."""
        host = request.headers.get("Host")
        if not self.access.host_ok(host):
            return refuse(f"Host '{echo(host or '')}' is not the address served")
        response: web.StreamResponse = await handler(request)
        return response

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, for the URL serve printed (its token); its socket at the address the
        browser used (which the Host check allowed), never 0.0.0.0."""
        if not self.access.token_ok(request.query.get("token")):
            return refuse("the page was asked for without the token serve printed")
        font_size = min(max(to_int(request.query.get("fontsize", ""), self.font_size), 6), 96)
        context = {
            "font_size": font_size,
            "app_websocket_url": f"ws://{request.host}/ws/{self.access.token}",
            "config": {"static": {"url": "/static/"}},
            "application": {"name": self.title},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        """One browser's session, as textual-serve runs it, once the token, the page's own
        origin and a free place are checked; its task and app process noted so that a stop
        can end it."""
        if not self.access.token_ok(request.match_info.get("token")):
            return refuse("a session without the token serve printed")
        origin, host = request.headers.get("Origin"), request.headers.get("Host")
        if not self.access.origin_ok(origin, host):
            return refuse(f"a session from another origin ('{echo(origin or 'none')}')")
        if len(self.sessions) >= self.max_sessions:
            why = f"{len(self.sessions)} sessions already open (--max-sessions {self.max_sessions})"
            return refuse(why, status=503)
        return await self.run_session(request)

    async def run_session(self, request: web.Request) -> web.WebSocketResponse:
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        websocket = web.WebSocketResponse(heartbeat=15)
        width = cells(request.query.get("width", ""), 80, MAX_COLUMNS)
        height = cells(request.query.get("height", ""), 24, MAX_ROWS)
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
        except (ConnectionError, RuntimeError) as exc:  # the browser went away mid-write
            log.warning("a session ended: %s", echo(str(exc) or type(exc).__name__))
        finally:
            self.sessions.discard(task)
            if service is not None:
                await service.stop()  # sends the app `quit`, waits for its output to end
        return websocket

    async def _process_messages(
        self, websocket: web.WebSocketResponse, app_service: AppService
    ) -> None:
        """The browser's messages, as textual-serve reads them; one that is not what its
        page sends (not JSON, another shape) is ignored, never an error."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            kind, data = browser_message(message.data)
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                width = cells(str(data.get("width")), 0, MAX_COLUMNS)
                height = cells(str(data.get("height")), 0, MAX_ROWS)
                if width and height:
                    await app_service.set_terminal_size(width, height)
            elif kind == "ping" and isinstance(data, str | int):
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

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
        """Serve until a stop signal (SIGHUP too: a closed terminal stops the server); the
        signal is kept in `stopped_by`."""
        self.debug = debug
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self.serve_until_stopped())
        finally:
            loop.close()

    async def serve_until_stopped(self) -> None:
        stopped = asyncio.Event()

        def stop(sig: signal.Signals) -> None:
            self.stopped_by = self.stopped_by or sig
            stopped.set()

        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, stop, sig)
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
            print(f"ckviz serve: open {self.access.url()} in a browser (ctrl+c stops)", flush=True)
            await stopped.wait()
        finally:
            await runner.cleanup()  # on_shutdown: every app told to quit, then waited for


def refuse(why: str, status: int = 403) -> web.Response:
    """A request serve does not answer, said on its stderr (one line) and to the client."""
    log.warning("refused: %s", why)
    return web.Response(status=status, text=f"ckviz serve: refused: {why}\n")


def cells(text: str, default: int, most: int) -> int:
    """A terminal size from the browser, in cells: a whole number from 1 to `most`."""
    value = to_int(text, default) if text.isdigit() else default
    return min(max(value, 1), most) if value else default


def browser_message(text: str) -> tuple[str | None, object]:
    """A browser's `[kind, data]` message; (None, None) for anything else."""
    try:
        envelope = json.loads(text)
    except (ValueError, RecursionError):
        return None, None
    if isinstance(envelope, list) and envelope and isinstance(envelope[0], str):
        return envelope[0], envelope[1] if len(envelope) > 1 else None
    return None, None


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


def serve(
    command: str, access: Access, title: str, max_sessions: int, font_size: int
) -> signal.Signals | None:
    """Serve the app `command` starts until stopped; the signal that stopped it."""
    server = AppServer(command, access, title, max_sessions, font_size)
    try:
        server.serve()
    except OSError as exc:  # the port taken, or an address not of this machine
        raise UsageError(
            f"serve: cannot listen on {access.bind} port {access.port}: {exc.strerror}"
        ) from None
    return server.stopped_by
