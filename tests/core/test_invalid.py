"""Invalid specs: every mistake gets one clear line, exit code 1, and never a traceback.

The corpus lives in tests/core/invalid/*.yaml. Each file opens with comment lines; every

    # expect: LINE PATH TEXT

line is one error gpuctl must report: a stderr line starting with `FILE:LINE:` (any column),
then the field path PATH (`-` when the problem has none, e.g. broken YAML; a deeper path under
PATH is accepted too), and containing TEXT (case-insensitive). Every error is exactly one line,
and there are exactly as many as expected. Files that cannot carry a header (binary junk, other
encodings, NUL bytes, alias bombs, ...) are generated below instead.

Everything runs through the installed `gpuctl` console script, as a user would run it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import EXAMPLES, GPUCTL, run_gpuctl

INVALID = Path(__file__).parent / "invalid"
CORPUS = sorted(INVALID.glob("*.yaml"))
COMMANDS = ("render", "validate")

_EXPECT = re.compile(r"^# expect: (?P<line>\d+) (?P<path>\S+) (?P<text>.+)$")
_LOCATION = re.compile(r"^(?P<line>\d+)(?::(?P<column>\d+))?: (?P<rest>.*)$")

# Safety bounds for hostile input, not speed targets (those are benchmarks'): a file that
# makes gpuctl hang or balloon fails here, however loaded the machine is.
WALL_SECONDS = 60.0
PEAK_RSS_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Expected:
    line: int | None  # None: any line of the file (but a line there must be)
    path: str  # "-": no field path required
    text: str  # "" : no text required

    def __str__(self) -> str:
        return f"line {self.line if self.line is not None else '*'}, {self.path}, {self.text!r}"


def read_expectations(path: Path) -> list[Expected]:
    """The `# expect:` lines of the comment block that opens a corpus file."""
    expected = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        match = _EXPECT.match(line)
        if match:
            expected.append(Expected(int(match["line"]), match["path"], match["text"]))
    return expected


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def _matches(line: str, shown: str, expected: Expected, line_count: int) -> bool:
    if not line.startswith(f"{shown}:"):
        return False
    location = _LOCATION.match(line[len(shown) + 1 :])
    if location is None:
        return False
    number = int(location["line"])
    if expected.line is None:
        if not 1 <= number <= line_count:
            return False
    elif number != expected.line:
        return False
    rest = location["rest"]
    if expected.path != "-":
        if not rest.startswith(expected.path):
            return False
        if rest[len(expected.path) : len(expected.path) + 1] not in (":", ".", "["):
            return False
    return expected.text.lower() in rest.lower()


def check_report(shown: str, stderr: str, expected: list[Expected], line_count: int) -> list[str]:
    """What is wrong with gpuctl's report (empty when it is right)."""
    failures = []
    if "Traceback" in stderr:
        failures.append("a traceback was printed")
    lines = error_lines(stderr)
    for line in lines:
        if not line.startswith(f"{shown}:") or not _LOCATION.match(line[len(shown) + 1 :]):
            failures.append(f"not a one-line FILE:LINE: error: {line!r}")
    for item in expected:
        if not any(_matches(line, shown, item, line_count) for line in lines):
            failures.append(f"missing error ({item})")
    if len(lines) != len(expected):
        failures.append(f"{len(lines)} error lines, expected {len(expected)}")
    return failures


# ---------------------------------------------------------------------------- the corpus


def test_the_corpus_is_big_enough_and_every_file_says_what_it_expects() -> None:
    assert len(CORPUS) >= 40
    for path in CORPUS:
        assert read_expectations(path), f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("spec", CORPUS, ids=lambda p: p.stem)
def test_invalid_spec_is_reported(spec: Path, command: str) -> None:
    expected = read_expectations(spec)
    line_count = len(spec.read_text(encoding="utf-8").splitlines())
    done = run_gpuctl(command, "-f", spec.name, cwd=INVALID)

    failures = check_report(spec.name, done.stderr, expected, line_count)
    if done.returncode != 1:
        failures.append(f"exit code {done.returncode}, expected 1")
    if done.stdout:
        failures.append(f"stdout is not empty: {done.stdout[:200]!r}")
    assert not failures, "\n".join([*failures, "stderr was:", done.stderr])


# ---------------------------------------------------------------------------- generated files


def _alias_bomb(levels: int, width: int) -> bytes:
    """Billion laughs: each level is a list of `width` aliases of the level below."""
    lines = ["kind: training", "version: v0.1", "job:", "  name: lol", 'lol0: &lol0 "lol"']
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*lol{level - 1}"] * width)
        lines.append(f"lol{level}: &lol{level} [{aliases}]")
    return ("\n".join(lines) + "\n").encode()


_PNG_LIKE = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256)) * 4
_TRAINING_HEAD = "kind: training\nversion: v0.1\njob:\n  name: qwen2-sft\n"
_DEPTH = 5000
_COMPUTE_HEAD = _TRAINING_HEAD.replace("training", "compute") + "environment:\n  image: nginx\n"

GENERATED: dict[str, tuple[bytes, Expected]] = {
    "empty-file": (b"", Expected(1, "-", "empty")),
    "binary-junk": (_PNG_LIKE, Expected(1, "-", "UTF-8")),
    "latin-1": (
        (_TRAINING_HEAD + "  description: café crème\n").encode("latin-1"),
        Expected(5, "-", "UTF-8"),
    ),
    "nul-byte": (
        (_TRAINING_HEAD + "  description: before\x00after\n").encode(),
        Expected(5, "-", "control character"),
    ),
    "utf-16-with-bom": (_TRAINING_HEAD.encode("utf-16"), Expected(1, "-", "UTF-16")),
    "utf-16-without-bom": (_TRAINING_HEAD.encode("utf-16-le"), Expected(1, "-", "UTF-16")),
    "alias-bomb-9x10": (_alias_bomb(9, 10), Expected(None, "-", "alias")),
    "alias-bomb-30x10": (_alias_bomb(30, 10), Expected(None, "-", "alias")),
    "alias-bomb-6x100": (_alias_bomb(6, 100), Expected(None, "-", "alias")),
    "deeply-nested-lists": (
        (_TRAINING_HEAD + "environment: " + "[" * _DEPTH + "]" * _DEPTH + "\n").encode(),
        Expected(5, "-", ""),
    ),
    "replicas-4001-digits": (
        (_COMPUTE_HEAD + "service:\n  replicas: 1" + "0" * 4000 + "\n").encode(),
        Expected(8, "service.replicas", "number is too long"),
    ),
    "cpu-5000-digits": (
        (_COMPUTE_HEAD + "resources:\n  memory: 1Gi\n  cpu: " + "9" * 5000 + "\n").encode(),
        Expected(9, "resources.cpu", "number is too long"),
    ),
    "cpu-5000-digits-quoted": (
        (_COMPUTE_HEAD + 'resources:\n  memory: 1Gi\n  cpu: "' + "9" * 5000 + '"\n').encode(),
        Expected(9, "resources.cpu", "(5000 characters)"),
    ),
    "deeply-nested-mappings": (
        (_TRAINING_HEAD + "environment: " + "{a: " * _DEPTH + "1" + "}" * _DEPTH + "\n").encode(),
        Expected(5, "-", ""),
    ),
}


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int  # bytes, of this child alone (wait4)


# A child's peak RSS (wait4) includes the memory of the process it was forked from: forked
# from a pytest worker it would read several hundred MiB whatever gpuctl does. So a small
# Python process starts gpuctl and measures it, and reports back in a file.
_MEASURE = """
import json, os, subprocess, sys, time
limit, report, command = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
started = time.monotonic()
child = subprocess.Popen(command, stdin=subprocess.DEVNULL)
while True:
    pid, status, usage = os.wait4(child.pid, os.WNOHANG)
    if pid:
        code = os.waitstatus_to_exitcode(status)
        break
    if time.monotonic() - started > limit:
        child.kill()
        os.wait4(child.pid, 0)
        code, usage = None, None
        break
    time.sleep(0.01)
with open(report, "w") as handle:
    json.dump({"code": code, "seconds": time.monotonic() - started,
               "rss": usage.ru_maxrss * 1024 if usage else 0}, handle)
"""


def run_bounded(*args: str, cwd: Path) -> Finished:
    """Run gpuctl, killing it after WALL_SECONDS; report its own peak RSS."""
    out_path, err_path, report = cwd / ".stdout", cwd / ".stderr", cwd / ".measure.json"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        subprocess.run(
            [sys.executable, "-c", _MEASURE, str(WALL_SECONDS), str(report), str(GPUCTL), *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            check=True,
            timeout=WALL_SECONDS + 30,
        )
    measured = json.loads(report.read_text())
    if measured["code"] is None:
        pytest.fail(f"gpuctl {' '.join(args)} ran for more than {WALL_SECONDS} s")
    return Finished(
        measured["code"],
        out_path.read_bytes().decode("utf-8", "replace"),
        err_path.read_bytes().decode("utf-8", "replace"),
        measured["seconds"],
        measured["rss"],
    )


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_hostile_file_is_reported_fast(name: str, command: str, tmp_path: Path) -> None:
    data, expected = GENERATED[name]
    spec = tmp_path / f"{name}.yaml"
    spec.write_bytes(data)
    line_count = max(1, data.count(b"\n"))
    done = run_bounded(command, "-f", spec.name, cwd=tmp_path)

    failures = check_report(spec.name, done.stderr, [expected], line_count)
    if done.returncode != 1:
        failures.append(f"exit code {done.returncode}, expected 1")
    if done.stdout:
        failures.append(f"stdout is not empty: {done.stdout[:200]!r}")
    if done.peak_rss > PEAK_RSS_BYTES:
        failures.append(f"peak RSS {done.peak_rss // 2**20} MiB")
    assert not failures, "\n".join([*failures, "stderr was:", done.stderr])


def test_oversized_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    spec = tmp_path / "huge.yaml"
    spec.write_bytes(
        b"# padding padding padding padding padding padding padding padding\n" * 150_000
    )
    for command in COMMANDS:
        done = run_bounded(command, "-f", spec.name, cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        assert "Traceback" not in done.stderr
        lines = error_lines(done.stderr)
        assert len(lines) == 1, done.stderr
        assert spec.name in lines[0]
        assert "larger than" in lines[0]
        assert done.peak_rss <= PEAK_RSS_BYTES


# ---------------------------------------------------------------------------- debug and dirs

DEBUG_CASE = INVALID / "training-gpu-quoted.yaml"


def test_gpuctl_debug_shows_the_traceback() -> None:
    quiet = run_gpuctl("render", "-f", str(DEBUG_CASE))
    assert quiet.returncode == 1
    assert "Traceback" not in quiet.stderr
    loud = run_gpuctl("render", "-f", str(DEBUG_CASE), env={"GPUCTL_DEBUG": "1"})
    assert loud.returncode == 1
    assert "Traceback" in loud.stderr
    assert "resources.gpu" in loud.stderr


@pytest.fixture
def mixed_directory(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    shutil.copy(EXAMPLES / "training.yaml", folder / "a-good.yaml")
    shutil.copy(DEBUG_CASE, folder / "b-bad.yaml")
    return folder


def _bad_report(folder: Path, stderr: str) -> list[str]:
    spec = folder / "b-bad.yaml"
    expected = read_expectations(spec)
    line_count = len(spec.read_text(encoding="utf-8").splitlines())
    return check_report(str(spec), stderr, expected, line_count)


def test_validate_directory_reports_the_bad_file_and_passes_the_good_one(
    mixed_directory: Path,
) -> None:
    done = run_gpuctl("validate", "-f", str(mixed_directory))
    assert done.returncode == 1, done.stderr
    assert done.stdout == f"{mixed_directory / 'a-good.yaml'}: ok\n"
    assert _bad_report(mixed_directory, done.stderr) == [], done.stderr


def test_render_directory_with_a_bad_file_prints_nothing(mixed_directory: Path) -> None:
    done = run_gpuctl("render", "-f", str(mixed_directory))
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert _bad_report(mixed_directory, done.stderr) == [], done.stderr
