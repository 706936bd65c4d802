"""The writer's streamed output (the app's recorded session): written as it goes into a
temp file beside the target, put in place only when the block ends well, by the same rules
as every output; and the recorder that streams into it stops quietly on a full disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Size

from ckviz.errors import UsageError
from ckviz.inputs.casts import read_cast
from ckviz.outputs.writer import OutputError, check_output, streamed_output
from ckviz.tui.casting import CastRecorder


def test_the_file_appears_whole_when_the_block_ends(tmp_path: Path) -> None:
    target = tmp_path / "s.cast"
    with streamed_output(check_output(str(target), "--record")) as write:
        recorder = CastRecorder(write, Size(20, 5), "t")
        recorder.output("hello", Size(20, 5))
        recorder.output("wider", Size(30, 5))
        assert not target.exists()  # a temp file beside it until then
    assert [p.name for p in tmp_path.iterdir()] == ["s.cast"]
    cast = read_cast(target, "replay")
    assert (cast.width, cast.height) == (20, 5)
    assert [(e.code, e.data) for e in cast.events] == [
        ("o", "hello"),
        ("r", "30x5"),
        ("o", "wider"),
    ]


@pytest.mark.parametrize("error", [ValueError("the app failed"), OSError(5, "the app's own")])
def test_an_error_in_the_block_leaves_nothing_and_passes_through_as_it_is(
    tmp_path: Path, error: Exception
) -> None:
    target = tmp_path / "s.cast"
    out = check_output(str(target), "--record")
    with pytest.raises(type(error)) as raised, streamed_output(out) as write:
        write("partial\n")
        raise error
    assert raised.value is error
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    target = tmp_path / "s.cast"
    target.write_text("old", "utf-8")
    with pytest.raises(UsageError, match="already exists; pass --force"):
        check_output(str(target), "--record")
    with streamed_output(check_output(str(target), "--record", force=True)) as write:
        write("new\n")
    assert target.read_text("utf-8") == "new\n"


def test_a_file_written_by_someone_else_meanwhile_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "s.cast"
    out = check_output(str(target), "--record")
    with pytest.raises(OutputError, match="written by someone else"), streamed_output(out) as write:
        write("ours\n")
        target.write_text("theirs", "utf-8")
    assert target.read_text("utf-8") == "theirs"


def test_a_full_device_stops_the_recording_quietly_and_says_so_once() -> None:
    with streamed_output(check_output("/dev/full", "--record")) as write:
        recorder = CastRecorder(write, Size(20, 5), "t")
        recorder.output("x" * 100_000, Size(20, 5))  # never raised into the drawing
    assert recorder.error is not None and "No space" in str(recorder.error)
