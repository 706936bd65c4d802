"""CI where users run it (issue 35 items 13 and 14): the workflow files pass GitHub's schema,
ckviz's own workflow runs .ci/run, the reusable matrix workflow is used as docs/headless.md
shows, and .ci/run works as root or through sudo and fails loudly without Redis 7."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import require_redis7

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
CI_RUN = ROOT / ".ci" / "run"


def load(path: Path) -> dict:
    loaded: dict = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return loaded


def schema_check(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows"]
        + [str(p) for p in paths],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_workflow_file_passes_githubs_schema() -> None:
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert {f.name for f in files} >= {"ci.yml", "ckviz-matrix.yml"}
    proc = schema_check(*files)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_schema_check_refuses_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    stepz: []\n")
    assert schema_check(broken).returncode != 0


def test_ckvizs_own_ci_runs_ci_run_on_ubuntu_with_python_3_11() -> None:
    (job,) = load(WORKFLOWS / "ci.yml")["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    steps = job["steps"]
    python = next(s for s in steps if str(s.get("uses", "")).startswith("actions/setup-python"))
    assert python["with"]["python-version"] == "3.11"
    assert any(str(s.get("uses", "")).startswith("astral-sh/setup-uv") for s in steps)
    assert steps[-1]["run"].strip() == "bash .ci/run"


def used_from_another_repository() -> dict:
    """The example of docs/headless.md: a workflow of a user's repository calling ckviz's."""
    text = (ROOT / "docs" / "headless.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    (example,) = [b for b in blocks if "ckviz-matrix.yml@" in b]
    loaded: dict = YAML(typ="safe").load(example)
    return loaded


def test_the_reusable_matrix_is_called_as_the_docs_show(tmp_path: Path) -> None:
    caller = used_from_another_repository()
    path = tmp_path / "fairness.yml"
    YAML(typ="safe").dump(caller, path)
    proc = schema_check(path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (job,) = caller["jobs"].values()
    owner, _, rest = job["uses"].partition("/")
    assert owner and rest.startswith("ckviz/.github/workflows/ckviz-matrix.yml@")
    inputs = load(WORKFLOWS / "ckviz-matrix.yml")["on"]["workflow_call"]["inputs"]
    given = set(job["with"])
    assert given <= set(inputs), given - set(inputs)
    assert {name for name, spec in inputs.items() if spec.get("required")} <= given


def test_the_reusable_matrix_shards_merges_checks_reports_and_gates() -> None:
    flow = load(WORKFLOWS / "ckviz-matrix.yml")
    runs = "\n".join(step.get("run", "") for job in flow["jobs"].values() for step in job["steps"])
    for needed in (
        '--shard "$SLICE/$CKVIZ_SHARDS"',
        "ckviz merge part-*.json --out all.json",
        "ckviz check all.json",
        '--fail-if-worse "$PCT"',
        '>> "$GITHUB_STEP_SUMMARY"',
    ):
        assert needed in runs, needed
    # inputs reach scripts through env, never pasted into a script's text
    assert "${{ inputs." not in runs


# --- .ci/run, in a folder of stand-ins: which commands it runs, and as whom ----------------

TOOLS = ("bash", "dirname", "mktemp", "rm", "env", "cat", "mkdir", "cp", "chmod")


def stand_ins(
    tmp_path: Path, *, uid: int, redis7: bool, pythons: tuple[str, ...], uv: bool = True
) -> Path:
    """A PATH of recorders: `id`, `sudo`, `apt-get`, `uv`, the Pythons and Redis 7 log their
    arguments to calls.log and succeed; the few real tools .ci/run needs are linked in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    for tool in TOOLS:
        real = shutil.which(tool)
        assert real, tool
        (bin_dir / tool).symlink_to(real)

    def recorder(name: str, body: str = "") -> None:
        script = bin_dir / name
        script.write_text(f'#!{shutil.which("bash")}\necho "{name} $*" >> {log}\n{body}\n')
        script.chmod(0o755)

    recorder("id", f'[ "$1" = -u ] && echo {uid}')
    recorder("sudo", '[ "$1" = -n ] && exit 0\n"$@"')
    recorder("apt-get")
    if uv:
        recorder("uv")
    # `PY -m venv DIR` makes DIR/bin/python, whose `-m pip install ... uv` makes DIR/bin/uv
    venv = (
        'if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; fi\n'
        'if [ "$1 $2 $3" = "-m pip install" ]; then d="$(dirname "$0")"; '
        f'printf \'#!%s\\necho "uv $*" >> %s\\n\' {shutil.which("bash")} {log} > "$d/uv"; '
        'chmod +x "$d/uv"; fi'
    )
    for python in pythons:
        recorder(python, venv)
    if redis7:
        redis = tmp_path / "redis-server"
        redis.write_text(f"#!{shutil.which('bash')}\necho 'Redis server v=7.0.15 sha=0'\n")
        redis.chmod(0o755)
    return bin_dir


def ci_run(tmp_path: Path, bin_dir: Path) -> tuple[subprocess.CompletedProcess[str], str]:
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp_path),
        "CKVIZ_REDIS_7": str(tmp_path / "redis-server"),
    }
    proc = subprocess.run(
        [str(bin_dir / "bash"), str(CI_RUN)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    log = tmp_path / "calls.log"
    return proc, log.read_text() if log.exists() else ""


def test_ci_run_as_a_sudo_user_installs_through_sudo(tmp_path: Path) -> None:
    bin_dir = stand_ins(tmp_path, uid=1001, redis7=True, pythons=("python3.11",))
    proc, calls = ci_run(tmp_path, bin_dir)
    assert proc.returncode == 0, proc.stderr
    assert "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium" in calls
    assert "sudo apt-get update -qq" in calls
    assert "uv run pytest" in calls


def test_ci_run_as_root_installs_without_sudo(tmp_path: Path) -> None:
    bin_dir = stand_ins(tmp_path, uid=0, redis7=True, pythons=("python3.12",))
    proc, calls = ci_run(tmp_path, bin_dir)
    assert proc.returncode == 0, proc.stderr
    assert "apt-get install -y -qq chromium" in calls and "sudo" not in calls


def test_ci_run_without_uv_installs_it_in_a_venv_of_its_own(tmp_path: Path) -> None:
    bin_dir = stand_ins(tmp_path, uid=1001, redis7=True, pythons=("python3.12",), uv=False)
    proc, calls = ci_run(tmp_path, bin_dir)
    assert proc.returncode == 0, proc.stderr
    tools = tmp_path / ".cache" / "ckviz-ci" / "uv"
    assert f"python3.12 -m venv {tools}" in calls  # never pip into the system's Python
    assert "-m pip install --quiet --disable-pip-version-check uv" in calls
    assert "uv sync --frozen --group docs" in calls and "uv run pytest" in calls


def test_ci_run_fails_loudly_without_redis_7(tmp_path: Path) -> None:
    bin_dir = stand_ins(tmp_path, uid=1001, redis7=False, pythons=("python3.11",))
    proc, calls = ci_run(tmp_path, bin_dir)
    assert proc.returncode == 1
    assert "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server" in calls
    assert "Redis 7" in proc.stderr and "uv run pytest" not in calls


def test_ci_run_needs_python_3_11_or_3_12(tmp_path: Path) -> None:
    bin_dir = stand_ins(tmp_path, uid=0, redis7=True, pythons=("python3.10",))
    proc, calls = ci_run(tmp_path, bin_dir)
    assert proc.returncode == 1
    assert "no python3.11 or python3.12" in proc.stderr and "uv " not in calls


def test_redis_7_tests_fail_under_ci_when_it_is_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "redis-server"
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI requires it"):
        require_redis7(missing)
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        require_redis7(missing)
    assert os.access(require_redis7(Path(sys.executable)), os.X_OK)
