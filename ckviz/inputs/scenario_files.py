"""Finding and reading scenario and matrix files: bundled names or any TOML path."""

from __future__ import annotations

import os
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ckviz.errors import UsageError, echo, echo_path, first_line
from ckviz.inputs.files import read_regular_text, why
from ckviz.inputs.trace import TRACE_SUFFIXES, TraceProblems, is_trace, read_trace
from ckviz.model.matrix import MatrixSpec, Sweep, SweepValue
from ckviz.model.scenario import FIELDS_ONLY, KeySpec, Scenario, TraceSpec
from ckviz.model.steps import StepScenario, on_steps
from ckviz.model.tenants import tenant_of

AnyScenario = Scenario | StepScenario

Model = TypeVar("Model", bound=BaseModel)
_TOO_DEEP = "arrays or tables nested too deeply"
_ALONE = " (nothing else of the file can be checked until it parses)"


def bundled_dir() -> Path:
    """Bundled scenarios: inside an installed wheel, else the checkout's `scenarios/`."""
    packaged = Path(str(resources.files("ckviz"))) / "scenarios"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "scenarios"


def matrices_dir() -> Path:
    return bundled_dir() / "matrices"


def bundled_names() -> list[str]:
    return sorted(p.stem for p in bundled_dir().glob("*.toml"))


def matrix_names() -> list[str]:
    return sorted(p.stem for p in matrices_dir().glob("*.toml"))


def resolve(name_or_path: str, folder: Path | None = None, kind: str = "scenario") -> Path:
    """A bundled file by name, or the path given; UsageError if neither exists."""
    folder = folder or bundled_dir()
    as_path = Path(name_or_path)
    if as_path.suffix in (".toml", *TRACE_SUFFIXES) or as_path.parent != Path("."):
        if not as_path.is_file():
            raise UsageError(f"{name_or_path}: {kind} file not found")
        return as_path
    bundled = folder / f"{name_or_path}.toml"
    if bundled.is_file():
        return bundled
    names = sorted(p.stem for p in folder.glob("*.toml"))
    import difflib  # only a mistyped name needs it (a headless run imports no more)

    close = difflib.get_close_matches(name_or_path, names, n=1)
    guess = f"did you mean {close[0]}? " if close else ""
    known = ", ".join(names)
    raise UsageError(
        f"unknown {kind} '{name_or_path}' ({guess}bundled: {known}; or give a .toml path)"
    )


def load(name_or_path: str) -> Scenario:
    """Read and validate a millisecond-driver scenario (a TOML file, or a trace file replayed
    as it is); its name is the file stem."""
    scenario = load_any(name_or_path)
    if on_steps(scenario):
        raise UsageError(
            f'{name_or_path}: a step-harness scenario ([harness] kind = "steps"); '
            "run it with --headless"
        )
    return scenario


def load_any(name_or_path: str) -> AnyScenario:
    """Read and validate a scenario of either kind: a `[harness]` table makes it a step one.
    A scenario with a trace has it read and checked here."""
    return load_file(resolve(name_or_path))


def load_file(path: Path) -> AnyScenario:
    """`load_any` for a path known to be a file (never taken for a bundled name)."""
    if is_trace(path):
        scenario = Scenario(name=path.stem, trace=TraceSpec(path=path.name))
        return _with_trace(scenario, path, path)
    data, problems = _read(path, Scenario)
    if problems:
        raise UsageError(problems[0] if len(problems) == 1 else " | ".join(problems))
    loaded = _model_for(data, Scenario).model_validate(data)
    if isinstance(loaded, Scenario) and loaded.trace is not None:
        return _with_trace(loaded, path, trace_path(path, loaded.trace.path))
    return loaded  # type: ignore[return-value]


class _TracePaths:
    """Whether a scenario's `[trace] path` may lead outside the scenario's folder: off unless
    the command's `--allow-trace-outside` says so (set once per command, read by every load,
    the app's reloads included)."""

    outside = False


TRACE_PATHS = _TracePaths()


def trace_path(source: Path, given: str) -> Path:
    """The trace a scenario file names, relative to its folder. It must stay inside that
    folder, symlinks resolved: a scenario someone shares must not read (and quote in an error
    line) any file of this machine (`../../../etc/passwd`, an absolute path, a link out)."""
    trace = source.parent / given
    if TRACE_PATHS.outside:
        return trace
    folder = os.path.realpath(source.parent)
    if os.path.commonpath([folder, os.path.realpath(trace)]) != folder:
        raise UsageError(
            f"{source}: trace.path: '{echo_path(given)}' leads outside the scenario's folder; put "
            "the trace beside the scenario, or pass --allow-trace-outside"
        )
    return trace


def _with_trace(scenario: Scenario, source: Path, trace: Path) -> Scenario:
    try:
        summary = read_trace(trace)
    except TraceProblems as exc:
        more = exc.count - 1
        tail = f" (and {more} more problems: ckviz validate {source} lists them)" if more else ""
        raise UsageError(exc.lines[0] + tail) from None
    problem = _light_key_problem(scenario, source, summary.weights)
    if problem:
        raise UsageError(problem)
    return scenario.with_replay(summary)


def _light_key_problem(scenario: Scenario, source: Path, keys: dict[str, float]) -> str | None:
    """Why the scenario's light_key or [tenants] table does not fit the trace's keys."""
    if scenario.tenants is not None:
        try:
            tenant_of(keys, scenario.tenants)
        except ValueError as exc:
            return f"{source}: tenants: {exc} (the keys of its trace)"
    if scenario.light_key is None or scenario.light_key in keys:
        return None
    return f"{source}: light_key: '{scenario.light_key}' is not a key of the trace"


def load_matrix(name_or_path: str) -> MatrixSpec:
    """Read and validate a matrix file; its name is the file stem."""
    return _load(resolve(name_or_path, matrices_dir(), "matrix"), MatrixSpec)


def swept(sweep: Sweep, matrix: str) -> list[Scenario]:
    """The sweep's scenario once per value, each named `<scenario>[<parameter>=<value>]` and
    validated as a scenario of its own (a bad value is one line naming the matrix file)."""
    base = load(sweep.scenario)
    parameter, values = sweep.parameter()
    try:
        if base.trace is not None:
            raise UsageError(f"'{base.name}' replays a trace; only [[keys]] can be swept")
        return [_variant(base, parameter, value) for value in values]
    except UsageError as exc:
        path = resolve(matrix, matrices_dir(), "matrix")
        raise UsageError(f"{path}: sweep: {exc}") from None


def _variant(base: Scenario, parameter: str, value: SweepValue) -> Scenario:
    data = base.model_dump(exclude={"trace"})
    key_name, _, field = parameter.rpartition(".")
    where = f"{parameter} = {value}"
    if not key_name:
        if field in ("name", "description", "keys", "expect", "caps", "light_key"):
            raise UsageError(f"'{field}' is not a numeric scenario field")
        target = data
    else:
        found = [k for k in data["keys"] if k["name"] == key_name]
        if not found:
            raise UsageError(f"'{key_name}' is not a [[keys]] name of '{base.name}'")
        target = found[0]
    known, owner = (
        (Scenario.model_fields, "the scenario") if not key_name else (KeySpec.model_fields, "a key")
    )
    if field not in known:
        raise UsageError(f"'{field}' is not a field of {owner}")
    target[field] = value
    data["name"] = f"{base.name}[{parameter}={value}]"
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        raise UsageError(f"{where}: {_where(error['loc'], data)}: {_reason(error)}") from None


def _load(path: Path, model: type[Model]) -> Model:
    data, problems = _read(path, model)
    if problems:
        raise UsageError(problems[0] if len(problems) == 1 else " | ".join(problems))
    return model.model_validate(data)


def problems_in(path: Path, model: type[BaseModel] = Scenario) -> list[str]:
    """Every problem with a file, one line each: `file: key.path: reason` (a trace file's:
    `file:line: field: reason`). A scenario's trace is checked too."""
    if model is Scenario:
        return checked(path)[0]
    return _read(path, model)[1]


def checked(path: Path) -> tuple[list[str], AnyScenario | None]:
    """Every problem with a scenario (or trace) file in one pass, not stage by stage: its
    fields, how its keys fit together, its trace; and the scenario its valid parts make, for
    the checks that read a loaded one (None when too little of it is valid)."""
    if is_trace(path):
        return _trace_checked(Scenario(name=path.stem, trace=TraceSpec(path=path.name)), path, path)
    data, problems = _read(path, Scenario)
    if not data:  # unreadable, or not TOML: nothing else can be read
        return problems, None
    scenario, more = _valid_part(path, data, problems)
    problems = problems + more
    if not isinstance(scenario, Scenario) or scenario.trace is None:
        return problems, scenario  # a step-harness scenario has no trace
    try:
        trace = trace_path(path, scenario.trace.path)
    except UsageError as exc:
        return [*problems, str(exc)], scenario
    found, replayed = _trace_checked(scenario, path, trace)
    return problems + found, replayed


def _valid_part(
    path: Path, data: dict[str, Any], known: list[str]
) -> tuple[AnyScenario | None, list[str]]:
    """The scenario left once the fields with problems are set aside, and the problems that
    only show then: pydantic skips the keys' cross-checks (a key declared twice, a light_key
    that is no key) while any field is bad."""
    model, more = _model_for(data, Scenario), list[str]()
    part, aside = data, set[str]()
    for _ in range(4):  # each pass sets aside what the last one found
        try:
            valid = model.model_validate(part, context=FIELDS_ONLY)
            model.model_validate(part)
            return valid, more  # type: ignore[return-value]
        except ValidationError as exc:
            errors = exc.errors()
        except RecursionError:
            return None, more
        for e in errors:
            line = f"{path}: {_where(e['loc'], part)}: {_reason(e)}"
            if line not in known and line not in more and not _follows(e["loc"], aside):
                more.append(line)
        if all(not e["loc"] for e in errors):  # only the cross-checks fail: the fields hold
            return _fields_only(model, part), more
        part, gone = _set_aside(part, [e["loc"] for e in errors if e["loc"]])
        aside |= gone
    return None, more


def _follows(loc: tuple[int | str, ...], aside: set[str]) -> bool:
    """Whether a problem only follows from a field set aside (reported already): a field
    back to its default, the keys without their [trace], the cross-checks without a key."""
    field = str(loc[0]) if loc else ""
    reads = {"keys": {"trace"}, "tenants": {"keys"}, "": {"keys"}}.get(field, set())
    return field in aside or bool(reads & aside)


def _fields_only(model: type[BaseModel], part: dict[str, Any]) -> AnyScenario | None:
    try:
        return model.model_validate(part, context=FIELDS_ONLY)  # type: ignore[return-value]
    except ValidationError:
        return None


def _set_aside(
    data: dict[str, Any], locs: list[tuple[int | str, ...]]
) -> tuple[dict[str, Any], set[str]]:
    """`data` without the values at `locs`: a table's bad field falls back to its default, a
    bad [[keys]] field too (a bad `runs` becomes 1, so the key's name still counts), a
    [[keys]] or [[expect]] entry goes when its name or itself is bad, any other field goes
    whole. Also: the top-level fields that went, whole or in part."""
    part = dict(data)
    entries = {f: list(part[f]) for f in ("keys", "expect") if isinstance(part.get(f), list)}
    gone: set[tuple[str, int]] = set()
    aside: set[str] = set()
    for loc in locs:
        field, index = str(loc[0]), loc[1] if len(loc) > 1 else None
        table = part.get(field)
        if (
            isinstance(table, dict) and index is not None and index in table
        ):  # a field of a table such as [trace]
            part[field] = _without(table, index)
            continue
        if field not in entries or not isinstance(index, int) or index >= len(entries[field]):
            part.pop(field, None)
            entries.pop(field, None)
            aside.add(field)
            continue
        entry = entries[field][index]
        if field == "expect" or len(loc) < 3 or loc[2] == "name" or not isinstance(entry, dict):
            gone.add((field, index))
            continue
        entries[field][index] = (
            {**entry, "runs": 1} if loc[2] == "runs" else _without(entry, loc[2])
        )
    for field, listed in entries.items():
        part[field] = [e for i, e in enumerate(listed) if (field, i) not in gone]
    return part, aside | {field for field, _ in gone}


def _without(entry: dict[str, Any], field: int | str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != field}


def _trace_checked(
    scenario: Scenario, source: Path, trace: Path
) -> tuple[list[str], Scenario | None]:
    try:
        summary = read_trace(trace)
    except TraceProblems as exc:
        return exc.lines, scenario
    problem = _light_key_problem(scenario, source, summary.weights)
    return ([problem], scenario) if problem else ([], scenario.with_replay(summary))


def _read(path: Path, model: type[BaseModel]) -> tuple[dict[str, Any], list[str]]:
    try:
        text = read_regular_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [f"{path}: cannot read: {why(exc)}"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: not valid TOML: {first_line(exc)}{_ALONE}"]
    except RecursionError:  # the parser recurses per level of [ or {
        return {}, [f"{path}: not valid TOML: {_TOO_DEEP}{_ALONE}"]
    data.setdefault("name", path.stem)
    try:
        _model_for(data, model).model_validate(data)
    except ValidationError as exc:
        return data, [f"{path}: {_where(e['loc'], data)}: {_reason(e)}" for e in exc.errors()]
    except RecursionError:
        return {}, [f"{path}: {_TOO_DEEP}"]
    return data, []


def _model_for(data: dict[str, Any], model: type[BaseModel]) -> type[BaseModel]:
    """Scenario files with a `[harness]` table are step-harness scenarios."""
    return StepScenario if model is Scenario and "harness" in data else model


def _reason(error: Any) -> str:
    msg = str(error["msg"])
    return msg.removeprefix("Value error, ")


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    """`keys[1].rate_per_sec`, naming the key by its `name` when it has one."""
    parts: list[str] = []
    node: Any = data
    for item in loc:
        if isinstance(item, int):
            label = f"[{item}]"
            if isinstance(node, list) and item < len(node) and isinstance(node[item], dict):
                named = node[item].get("name") or node[item].get("label")
                if isinstance(named, str):  # escaped and cut: a name must not break the line
                    label = f"[{item}] ({echo(named)})"
            parts[-1:] = [f"{parts[-1]}{label}"] if parts else [label]
        else:
            parts.append(str(item))
        node = _child(node, item)
    return ".".join(parts) or "(top level)"


def _child(node: Any, item: int | str) -> Any:
    if isinstance(node, list) and isinstance(item, int) and item < len(node):
        return node[item]
    if isinstance(node, dict):
        return node.get(item)
    return None
