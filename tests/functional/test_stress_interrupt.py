"""An interrupted `ckviz stress` (issue 35 item 9) writes its figures so far, marked
incomplete, as `--headless` writes its partial results; exit 130, nothing left behind."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.functional.test_serve import poll
from tests.functional.trust_support import (
    ckviz_command,
    ckviz_env,
    finish,
    own_redis,
    process_group,
)


@pytest.mark.slow  # seconds of real traffic, waited out
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_stress_writes_its_figures_so_far(
    tmp_path: Path, sig: signal.Signals
) -> None:
    out = tmp_path / "stress.json"
    with own_redis() as server:
        client = server.client()
        command = ckviz_command(
            "stress", "--redis-url", server.url, "--seconds", "120", "--out", str(out)
        )
        with process_group(command, ckviz_env()) as proc:
            poll(lambda: client.keys("ckviz:*"), "stress writes to the server")
            poll(
                lambda: client.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0) > 50,
                "runs go through",
            )
            proc.send_signal(sig)
            rc, lines = finish(proc, timeout=60)
        assert client.keys("ckviz:*") == []
    assert rc == 130, lines
    assert any(f"interrupted; partial figures written to {out}" in line for line in lines), lines
    results = json.loads(out.read_text())
    assert results["complete"] is False and "interrupted" in results["error"]
    assert results["produced"] > 0 and results["seconds"] < 120
