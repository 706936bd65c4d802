"""The CI-log neutraliser (issue 35 item 3): no line ckviz prints under GitHub Actions is a
workflow command it did not write, however the text is cut into writes."""

from __future__ import annotations

import pytest

from ckviz.outputs.ci_log import (
    LogNeutraliser,
    annotation_data,
    annotation_property,
    neutralise,
    own_command,
)


def acts(log: str) -> list[str]:
    """The lines GitHub's runner would act on: `##[` anywhere, `::` after leading blanks."""
    return [line for line in log.split("\n") if "##[" in line or line.lstrip().startswith("::")]


@pytest.mark.parametrize(
    "text",
    [
        "key ##[error]evil\n",
        "##[stop-commands]x\n",
        "::error::evil\n",
        "   \t::warning file=a::evil\n",
        "ok\n::add-mask::x\nok ###[group]\n",
        "####[[x\n",
    ],
)
def test_nothing_acts_and_the_text_stays_readable(text: str) -> None:
    out = neutralise(text)
    assert acts(out) == []
    assert out.replace("\\", "") == text  # a backslash inserted, nothing else changed


@pytest.mark.parametrize("cut", range(1, 14))
def test_a_command_cut_across_writes_is_caught(cut: int) -> None:
    text = "  ::error::a ##[b]\n::c\n"
    stream = LogNeutraliser()
    out = stream(text[:cut]) + stream(text[cut:])
    assert acts(out) == [] and out.replace("\\", "") == text


def test_ckvizs_own_command_passes_with_the_user_text_escaped() -> None:
    data = annotation_data("100% ##[x]\r\n::error::y")
    line = own_command(f"::error title={annotation_property('ckviz check failed: a,b:c')}::{data}")
    assert neutralise(line + "\n") == line + "\n"
    assert "title=ckviz check failed%3A a%2Cb%3Ac::" in line
    assert line.endswith("::100%25 ##\\[x]%0D%0A::error::y")
    assert "\n" not in line and "\r" not in line
    assert neutralise(line.replace("y", "z") + "\n") != line.replace("y", "z") + "\n"
