"""A script carries only the lib functions it calls, directly or through each other."""

from __future__ import annotations

from ckviz.store.scripts import lib_functions, with_lib

LIB = """-- the lib
local function low(x)
  return x
end

-- calls low
local function mid(x)
  return low(x) + 1
end

local function unused(x)
  return x
end
"""


def test_the_lib_is_cut_into_its_functions_with_their_comments() -> None:
    pieces = lib_functions(LIB)
    assert [name for name, _ in pieces] == ["low", "mid", "unused"]
    assert pieces[1][1].startswith("\n-- calls low\nlocal function mid(x)")
    assert "".join(text for _, text in pieces) == LIB.rstrip("\n") + "\n"


def test_a_script_gets_what_it_calls_and_what_that_calls_in_the_libs_order() -> None:
    source = with_lib(LIB, "return mid(1)\n")
    assert "local function unused" not in source
    assert source.index("local function low") < source.index("local function mid")
    assert source.endswith("return mid(1)\n")


def test_a_script_calling_nothing_gets_nothing() -> None:
    assert with_lib(LIB, "return 1\n") == "return 1\n"


def test_a_function_is_kept_for_its_whole_name_only() -> None:
    assert with_lib(LIB, "return lowest(1) + mid_x + x.mid2\n") == (
        "return lowest(1) + mid_x + x.mid2\n"
    )
    assert "local function low" in with_lib(LIB, "return {low(1)}\n")
