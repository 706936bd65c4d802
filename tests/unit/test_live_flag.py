"""Which dequeue serves a live queue, told from its ckVtime keys' TTL and the runs queued: a
first attempt enqueued well after ckVtime was last written says the flag is off."""

from __future__ import annotations

from ckviz.live.flag import LATE_MS, STATE_TTL_MS, Head, infer_flag, last_written

NOW = 1_000_000_000.0
HOUR = 3_600_000


def written(ago_ms: float) -> int:
    """ckVtime's PTTL when vtime's scripts last wrote it `ago_ms` before NOW."""
    return int(STATE_TTL_MS - ago_ms)


def test_no_vtime_keys_is_the_baseline() -> None:
    flag = infer_flag(False, -2, [], NOW)
    assert (flag.discipline, flag.why) == ("baseline", "no ckVtime keys: the flag is off")


def test_the_ttl_dates_the_last_vtime_write() -> None:
    assert last_written(written(HOUR), NOW) == NOW - HOUR
    assert last_written(-1, NOW) is None  # no TTL: not vtime's scripts' key
    assert last_written(STATE_TTL_MS + 1, NOW) is None


def test_a_first_attempt_enqueued_after_the_last_write_is_a_rolled_back_flag() -> None:
    late = Head("acme", "run_9", NOW - 20_000, attempt=0)
    flag = infer_flag(True, written(HOUR), [late], NOW)
    assert flag.discipline == "baseline"
    assert "run 'run_9' (key 'acme') was enqueued 59 min 40 s after ckVtime" in flag.why
    assert flag.why.endswith("its ckVtime keys are stale (they expire in 23.0 h)")


def test_runs_enqueued_before_the_last_write_leave_vtime() -> None:
    early = Head("acme", "run_1", NOW - 30_000, attempt=0)
    flag = infer_flag(True, written(10_000), [early], NOW)
    assert flag.discipline == "vtime" and "last written 10.0 s before the read" in flag.why


def test_neither_a_retry_nor_a_run_within_the_margin_is_a_sign() -> None:
    retried = Head("acme", "run_r", NOW - 1000, attempt=2)  # queued again at a later score
    close = Head("beta", "run_c", NOW - HOUR + LATE_MS - 1, attempt=0)
    future = Head("gamma", "run_f", NOW + 5000, attempt=0)  # not due
    assert infer_flag(True, written(HOUR), [retried, close, future], NOW).discipline == "vtime"
    assert infer_flag(True, -1, [Head("a", "r", NOW, 0)], NOW).discipline == "vtime"
