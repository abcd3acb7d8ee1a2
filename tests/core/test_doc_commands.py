"""Every shell block of the README, the docs and the SDKs' READMEs is run as a reader would run
it, or says why it is not: the docs cannot drift from what gpuctl does.

A shell block is a ```bash, ```sh, ```shell or ```console fence. One that is not run carries,
on the line before its fence, `<!-- not run: REASON -->` (an HTML comment: the site does not
show it), the reason precise (needs a real cluster, Kueue, a GPU, installs packages, runs until
stopped ...). Every other block of a page is run, in the page's order, as one shell session:

- on a sandbox of the page's own, in the state the README's first command leaves (`gpuctl
  sandbox up --config examples/sandbox/cluster.yaml`, exported, then `gpuctl apply -f
  examples/`), with a HOME of its own, the installed `gpuctl` first on PATH, and a working
  directory that holds the repository's files (`examples/` a copy: a page may change it);
- a bash block's commands are its lines (with `\\` continuations and here-documents); a
  console block's are its `$ ` lines, and the lines up to the next `$ ` are what it prints;
- each command must exit 0, unless its comment says `(exit N)` (then N), or the comment line
  right after it starts with `# error:` (then it must fail, printing that error);
- what a block shows is compared: a table header in a command's comment (`# NAME STATUS …`)
  with a line of its output, and so an object's line (`# job.batch/x created`); a console
  command's output lines, in order, each a whole line (`...` or `…` alone stands for any
  lines, `…` in a line for any text); a bash command's `# {...}`, `# [...]` (JSON, compared
  as data), `# ok` and `# error: ...` line right after it;
- a REST answer with an `error` (`curl -s` exits 0 on any answer) is one the page names on the
  command's line or shows after it;
- `gpuctl serve` listens on a free port, not 8000, which the commands' `127.0.0.1:8000` then
  names; a server the page starts in the background is stopped with the page's session.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .conftest import GPUCTL, REPO

FENCE = re.compile(r"^(\s*)```(bash|sh|shell|console)\s*$")
NOT_RUN = re.compile(r"^\s*<!-- not run: (?P<reason>\S.*?) -->\s*$")
SHOWN_JSON = re.compile(r"^# (?P<shown>[\[{].*|ok)$")
SHOWN_ERROR = re.compile(r"^# (?P<shown>error: .*)$")
EXIT = re.compile(r"\(exit (\d+)\)")
PAGE_SECONDS = 240


def pages() -> list[str]:
    found = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    found += sorted((REPO / "sdk").glob("*/README.md"))
    return [path.relative_to(REPO).as_posix() for path in found]


@dataclass
class Command:
    """One command of a block: where it is, its text, what it must exit with (None: any but
    0), and what it shows it prints (lines; for bash, one JSON value or text)."""

    where: str
    text: str
    exit: int | None = 0
    shown: list[str] = field(default_factory=list)
    json: bool = False


@dataclass
class Block:
    where: str
    language: str
    lines: list[str]
    first: int  # the line number of the block's first line
    reason: str | None


def blocks(page: str) -> list[Block]:
    """Every shell block of `page`, dedented to its fence, with its not-run reason if any."""
    lines = (REPO / page).read_text(encoding="utf-8").splitlines()
    found = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        indent, end = len(fence.group(1)), index + 1
        while not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        marker = NOT_RUN.match(lines[index - 1]) if index else None
        body = [
            line[indent:] if line[:indent].isspace() else line for line in lines[index + 1 : end]
        ]
        reason = marker.group("reason") if marker else None
        found.append(Block(f"{page}:{index + 1}", fence.group(2), body, index + 2, reason))
        index = end + 1
    return found


def commands(page: str, block: Block) -> list[Command]:
    if block.language == "console":
        return _console_commands(page, block)
    return _bash_commands(page, block)


def _console_commands(page: str, block: Block) -> list[Command]:
    found: list[Command] = []
    for number, line in enumerate(block.lines, block.first):
        if line.startswith("$ "):
            text = line[2:]
            found.append(Command(f"{page}:{number}", text, _exit_of(text)))
        elif found:
            found[-1].shown.append(line)
    return found


def _bash_commands(page: str, block: Block) -> list[Command]:
    found: list[Command] = []
    lines = list(enumerate(block.lines, block.first))
    index, after = 0, False  # after: the line before was a command's
    while index < len(lines):
        number, line = lines[index]
        index += 1
        if line.lstrip().startswith("#") and after:
            _shown_by_comment(found[-1], line.strip())
        after = False
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text = line
        while text.endswith("\\") and index < len(lines):
            text += "\n" + lines[index][1]
            index += 1
        heredoc = re.search(r"<<-?\s*'?(\w+)'?", text)
        if heredoc:
            while index < len(lines) and lines[index][1] != heredoc.group(1):
                text += "\n" + lines[index][1]
                index += 1
            text += "\n" + heredoc.group(1)
            index += 1
        found.append(Command(f"{page}:{number}", text, _exit_of(text)))
        after = True
    return found


def _shown_by_comment(command: Command, comment: str) -> None:
    """The comment line right after a command, when it shows its answer or its error."""
    shown = SHOWN_JSON.match(comment)
    if shown:
        command.shown = [shown.group("shown")]
        command.json = shown.group("shown") != "ok"
    error = SHOWN_ERROR.match(comment)
    if error:
        command.shown, command.exit = [error.group("shown")], None


def _exit_of(text: str) -> int:
    """The status a command's comment gives as `(exit N)`, else 0."""
    comments = [re.search(r"(^|\s)#\s.*$", line) for line in text.splitlines()]
    status = [EXIT.search(c.group(0)) for c in comments if c]
    return next((int(s.group(1)) for s in status if s), 0)


HEADER = re.compile(r"(?:^|\s)#\s+((?:[A-Z][A-Z-]+\s+)+[A-Z][A-Z-]+)(?:\s+…)?\s*$")


OBJECT_LINE = re.compile(r"(?:^|\s)#\s+([a-z][a-z0-9.-]*/\S+ [a-z]+\b[^(;]*)")


def object_line_of(text: str) -> str | None:
    """The line a command's comment says it prints (`# job.batch/x created`, `# node/y
    labeled`, `# examples/z.yaml: ok …`), up to a note in brackets or after `;`."""
    shown = OBJECT_LINE.search(text.splitlines()[0])
    return shown.group(1).strip() if shown else None


def header_of(text: str) -> list[str]:
    """The table header a command's comment shows (`# NAME STATUS GPU …`), as words."""
    shown = HEADER.search(text.splitlines()[0])
    return shown.group(1).split() if shown else []


# ------------------------------------------------------------------------- the checks


def shown_matches(shown: list[str], output: str) -> bool:
    """Whether `output` has the shown lines in order; a `...`/`…` line stands for any lines
    and a `…` in a line for any text; spaces are compared as one."""

    def words(line: str) -> str:
        return " ".join(line.split())

    pattern = ""
    for line in shown:
        if words(line) in ("...", "…"):
            pattern += r"(?:.*\n)*?"
        else:
            parts = [re.escape(part.strip()) for part in words(line).split("…")]
            pattern += r"(?:.*\n)*?" + ".*?".join(parts) + r"\n"
    text = "\n".join(words(line) for line in output.splitlines()) + "\n"
    return re.match(pattern, text) is not None


def _answer_matches(command: Command, output: str) -> bool:
    header = header_of(command.text)
    if header and not any(line.split()[: len(header)] == header for line in output.splitlines()):
        return False
    line = object_line_of(command.text)
    if line and not shown_matches([line], output):
        return False
    if not command.shown:
        return True
    if command.json:
        try:
            return bool(json.loads(output) == json.loads(command.shown[0]))
        except json.JSONDecodeError:
            return False
    if command.exit is None:  # `# error: ...`: the error it prints
        return shown_matches([command.shown[0].replace(": …", "…")], output)
    return shown_matches(command.shown, output)


def _refusal(output: str) -> str | None:
    """The `error` of a REST answer (`{"error": "JobNotFound", ...}`): a page names the refusals
    it shows, so `curl -s`, which exits 0 on any answer, cannot hide one it does not."""
    try:
        answer = json.loads(output)
    except json.JSONDecodeError:
        return None
    error = answer.get("error") if isinstance(answer, dict) else None
    return error if isinstance(error, str) else None


# ------------------------------------------------------------------------- one page's session


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _on_port(text: str, port: int) -> str:
    text = text.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    if re.search(r"\bgpuctl serve\b", text) and "--port" not in text:
        text = re.sub(r"\bgpuctl serve\b", f"gpuctl serve --port {port}", text, count=1)
    return text


PRELUDE = """\
eval "$(gpuctl sandbox up --config examples/sandbox/cluster.yaml)" || exit 90
gpuctl apply -f examples/ >/dev/null 2>&1 || exit 91
"""


def script(run: list[Command], results: Path, port: int) -> str:
    """One bash session: the prelude, then each command with its output and status kept in
    `results`; it stops after the first command that does not exit as shown."""
    parts = [PRELUDE]
    for index, command in enumerate(run):
        text = _on_port(command.text, port)
        out = results / f"{index}.out"
        wrong = "[ $__rc -eq 0 ]" if command.exit is None else f"[ $__rc -ne {command.exit} ]"
        parts.append(
            f"echo {index} > {results}/started\n"
            f"{{ eval {shlex.quote(text)}\n}} > {out} 2>&1 < /dev/null; __rc=$?\n"
            f"echo $__rc > {results}/{index}.rc\n"
            f"if {wrong}; then exit 0; fi\n"
        )
    return "".join(parts)


def workdir(tmp_path: Path) -> Path:
    """The repository's files, `examples/` a copy of its own (a page may chmod or write there)."""
    work = tmp_path / "repo"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name in ("examples", ".git", ".venv", "site") or entry.name.startswith("."):
            continue
        (work / entry.name).symlink_to(entry)
    shutil.copytree(REPO / "examples", work / "examples")
    return work


def environment(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key.startswith(("LANG", "LC_", "XDG_", "PYTHON", "GPUCTL_")) and key != "GPUCTL_E2E"
    }
    env.pop("KUBECONFIG", None)
    return env | {
        "HOME": str(home),
        "PATH": f"{GPUCTL.parent}:/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": str(REPO),
        "GPUCTL_CACHE_DIR": str(tmp_path / "cache"),
        "TERM": "dumb",
    }


def run_page(page: str, tmp_path: Path) -> str | None:
    """Run the page's runnable blocks; what went wrong, or None."""
    run = [c for block in blocks(page) if block.reason is None for c in commands(page, block)]
    results = tmp_path / "results"
    results.mkdir()
    work, env = workdir(tmp_path), environment(tmp_path)
    port = _free_port()
    session = subprocess.Popen(
        ["bash", "-c", script(run, results, port)],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        prelude, _ = session.communicate(timeout=PAGE_SECONDS)
    except subprocess.TimeoutExpired:
        if not (results / "started").exists():
            return f"{page}: the README's first command still runs after {PAGE_SECONDS} s"
        late = run[int((results / "started").read_text())]
        return f"{late.where}: still running after {PAGE_SECONDS} s: {late.text}"
    finally:
        _stop(session, work, env)
    if session.returncode in (90, 91):
        return f"{page}: the README's first command failed:\n{prelude}"
    return _first_problem(run, results)


def _stop(session: subprocess.Popen[str], work: Path, env: dict[str, str]) -> None:
    """End the session and what it left running: its background jobs, its sandbox."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(session.pid, signal.SIGTERM)
    session.wait(timeout=30)
    subprocess.run(
        [str(GPUCTL), "sandbox", "down"], cwd=work, env=env, capture_output=True, check=False
    )
    for pid in _started_under(work.parent):  # a sandbox whose `up` failed has no state file
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def _started_under(folder: Path) -> list[int]:
    """The processes whose command line names `folder` (this test's own temporary folder)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if f"{folder}/".encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
    return [pid for pid in found if pid != os.getpid()]


def _first_problem(run: list[Command], results: Path) -> str | None:
    for index, command in enumerate(run):
        status = results / f"{index}.rc"
        if not status.exists():
            return f"{command.where}: not run (the session ended before it): {command.text}"
        rc, output = int(status.read_text()), (results / f"{index}.out").read_text()
        expected = "a failure" if command.exit is None else f"exit {command.exit}"
        if (rc == 0) != (command.exit == 0) or (command.exit not in (None, 0, rc)):
            return f"{command.where}: exit {rc}, shown as {expected}: $ {command.text}\n{output}"
        refused = _refusal(output)
        if refused and refused not in command.text + "\n".join(command.shown):
            unshown = f"answered {refused}, which the page does not show"
            return f"{command.where}: {unshown}: $ {command.text}\n{output}"
        if not _answer_matches(command, output):
            shown = "\n".join(command.shown) or " ".join(header_of(command.text))
            shown = shown or str(object_line_of(command.text))
            return f"{command.where}: $ {command.text}\nprinted:\n{output}\nshown:\n{shown}"
    return None


# ------------------------------------------------------------------------- the tests

RUNNABLE = [page for page in pages() if any(block.reason is None for block in blocks(page))]


def test_every_shell_block_is_run_or_says_why_not() -> None:
    """A block is run (its page's test below) unless its marker gives a reason of a few words;
    a block that is run has a command; a marker that is not on the line before a shell fence
    (after a blank line, before a YAML block, misspelt) is named by file:line, as it would be
    ignored."""
    every = [block for page in pages() for block in blocks(page)]
    assert len(every) >= 70
    vague = [b.where for b in every if b.reason is not None and len(b.reason.split()) < 3]
    assert vague == []
    empty = [b.where for p in pages() for b in blocks(p) if not b.reason and not commands(p, b)]
    assert empty == []
    assert stray_markers() == []


def stray_markers() -> list[str]:
    """file:line of each `not run` comment that does not mark the shell block right after it."""
    stray = []
    for page in pages():
        lines = (REPO / page).read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if not line.lstrip().startswith("<!-- not run"):
                continue
            fence = FENCE.match(lines[number]) if number < len(lines) else None
            if NOT_RUN.match(line) is None or fence is None:
                stray.append(f"{page}:{number}")
    return stray


@pytest.mark.parametrize("page", RUNNABLE)
def test_the_pages_commands_run_as_shown(page: str, tmp_path: Path) -> None:
    problem = run_page(page, tmp_path)
    assert problem is None, problem


# ------------------------------------------------------------------------- the reading itself


def test_a_console_block_is_its_dollar_lines_and_their_output() -> None:
    block = Block("p:1", "console", ["$ gpuctl get jobs -n a", "NAME  KIND", "$ true"], 2, None)
    found = commands("p", block)
    assert [(c.where, c.text, c.shown) for c in found] == [
        ("p:2", "gpuctl get jobs -n a", ["NAME  KIND"]),
        ("p:4", "true", []),
    ]


def test_a_bash_block_joins_continuations_and_heredocs_and_reads_its_answers() -> None:
    lines = [
        "curl -s \\",
        "  http://x  # (exit 7)",
        "# 1",
        '# {"a": 1}',
        "",
        "true",
        '# {"a": 1}',
        "gpuctl create -f - <<'EOF'",
        "kind: training",
        "EOF",
        "# error: job.batch/crash: … failed",
        "# a note",
    ]
    found = commands("p", Block("p:1", "bash", lines, 2, None))
    assert [(c.where, c.exit, c.shown, c.json) for c in found] == [
        ("p:2", 7, [], False),
        ("p:7", 0, ['{"a": 1}'], True),
        ("p:9", None, ["error: job.batch/crash: … failed"], False),
    ]
    assert found[2].text == "gpuctl create -f - <<'EOF'\nkind: training\nEOF"
    assert _exit_of("gpuctl diff -f x  # no changes (exit 1)") == 1
    assert header_of("gpuctl get pools   # NAME NODES GPU …") == ["NAME", "NODES", "GPU"]
    assert header_of("gpuctl get nodes --label x   # NAME KEY VALUE of that label") == []
    assert object_line_of("gpuctl apply -f x.yaml   # deployment.apps/… configured") == (
        "deployment.apps/… configured"
    )
    assert object_line_of("gpuctl get jobs   # the jobs, one a line") is None
    assert object_line_of("gpuctl x  # node/n labeled (once); more") == "node/n labeled"


def test_shown_output_matches_in_order_with_ellipses() -> None:
    output = "a 1\nkind: PodDisruptionBudget\nx\nspec:\n  minAvailable:   1\n"
    assert shown_matches(["kind: PodDisruptionBudget", "...", "spec:", "minAvailable: 1"], output)
    assert not shown_matches(["spec:", "kind: PodDisruptionBudget"], output)
    assert shown_matches(["a …"], output) and not shown_matches(["b …"], output)
    assert not shown_matches(["a"], output)  # a whole line, unless `…` says more follows


def test_a_not_run_marker_is_read_from_the_line_before_the_fence() -> None:
    assert NOT_RUN.match("  <!-- not run: needs a real cluster -->")
    assert not NOT_RUN.match("<!-- not run:  -->")
