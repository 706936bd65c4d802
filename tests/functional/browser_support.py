"""A headless Chromium driven over the DevTools protocol, through a pipe (no port, nothing
fetched): open a page, read what its xterm.js terminal shows, press keys. For the tests of
`ckviz serve`, whose page draws the app in a terminal on a canvas (so --dump-dom sees none
of its text)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

# Run before the page's own scripts: the terminal textual-serve's page creates is assigned to
# an object's `terminal` property; note it on `window` so the test can read its buffer.
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && typeof value.write === "function" && value.buffer && !window.ckvizTerminal) {
      window.ckvizTerminal = value;
    }
  },
});
"""

# The terminal's screen as text, one line per row (null until the terminal exists).
SCREEN = """(() => {
  const t = window.ckvizTerminal;
  if (!t) return null;
  const buffer = t.buffer.active, rows = [];
  for (let y = 0; y < t.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()"""

KEYS = {" ": ("Space", 32), "n": ("KeyN", 78), "q": ("KeyQ", 81)}


class Browser:
    """One headless Chromium with one page, spoken to over --remote-debugging-pipe."""

    def __init__(self, executable: str, profile: Path, width: int, height: int) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the browser's ends, moved above 9 so the shell can put them on 3 and 4 (where
        # --remote-debugging-pipe reads and writes) without overwriting one with the other (bash: dash takes one-digit fds only)
        reads = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        writes = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--remote-debugging-pipe",
            f"--window-size={width},{height}",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        on_3_and_4 = f'exec "$@" 3<&{reads} 4>&{writes} {reads}<&- {writes}>&-'
        self.process = subprocess.Popen(
            ["bash", "-c", on_3_and_4, "bash", executable, *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(reads, writes),
        )
        os.close(reads)
        os.close(writes)
        self._next_id = 0
        self._pending = b""
        self.session = ""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]

    def call(self, method: str, timeout: float = 20.0, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its reply (events meanwhile are passed over)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("no reply from the browser")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._pending += chunk
        raw, self._pending = self._pending.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def open(self, url: str) -> None:
        self.call("Page.enable")
        self.call("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return reply["result"].get("value")

    def screen(self) -> str:
        """What the page's terminal shows now ('' before it exists)."""
        return str(self.evaluate(SCREEN) or "")

    def press(self, key: str) -> None:
        """A key pressed and released in the page's terminal, as a person would type it."""
        self.evaluate("window.ckvizTerminal && window.ckvizTerminal.focus()")
        code, vk = KEYS[key]
        common = {"key": key, "code": code, "windowsVirtualKeyCode": vk}
        self.call("Input.dispatchKeyEvent", type="keyDown", text=key, **common)
        self.call("Input.dispatchKeyEvent", type="keyUp", **common)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
