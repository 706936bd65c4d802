"""`--junit FILE`: the --check rules as JUnit XML, the report format CI systems display.

One <testsuite> per scenario, one <testcase> per [[expect]] rule (classname `ckviz.<scenario>`,
name = the rule as printed, time = the wall seconds of the runs it compares); a failed rule
carries <failure>, a skipped one <skipped>, each with the rule's detail. A run with no rules
gives an empty <testsuites tests="0">."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ckviz.model.results import CheckResult

# XML 1.0 cannot carry most control characters, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def junit_xml(checks: Sequence[CheckResult]) -> str:
    root = ET.Element("testsuites", {"name": "ckviz --check", **_counts(checks)})
    by_scenario: dict[str, list[CheckResult]] = {}
    for c in checks:
        by_scenario.setdefault(c.scenario, []).append(c)
    for scenario, rules in by_scenario.items():
        suite = ET.SubElement(root, "testsuite", {"name": _text(scenario), **_counts(rules)})
        suite.set("time", _seconds(sum(c.wall_clock_s or 0.0 for c in rules)))
        for c in rules:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_text(f"ckviz.{scenario}"),
                name=_text(c.rule),
                time=_seconds(c.wall_clock_s or 0.0),
            )
            detail = _text(c.detail)
            if c.status == "failed":
                ET.SubElement(
                    case, "failure", message=detail, type="ExpectationFailed"
                ).text = detail
            elif c.status == "skipped":
                ET.SubElement(case, "skipped", message=detail)
            else:
                ET.SubElement(case, "system-out").text = detail
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _counts(checks: Sequence[CheckResult]) -> dict[str, str]:
    return {
        "tests": str(len(checks)),
        "failures": str(sum(c.status == "failed" for c in checks)),
        "errors": "0",
        "skipped": str(sum(c.status == "skipped" for c in checks)),
    }


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)
