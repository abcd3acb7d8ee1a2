"""What a simulated container's command would do, read from its text: the lines it prints, the
code it exits with, whether it eats memory until the kernel kills it.

Two kinds of command are read, as written for a real container:

- `sh -c` (or bash, ash, dash) scripts: statements split at newlines, `;`, `&&` and `||`;
  `echo TEXT` prints a line, `exit N` ends with code N, `tail /dev/zero` grows without bound
  (it looks for a line end that never comes) and is killed for its memory;
- `python -c` (python3 too) programs: top-level `print("text")` prints a line,
  `raise SystemExit(N)`, `sys.exit(N)` and `exit(N)` end with code N, and a `while True:` loop
  that calls `bytearray` grows without bound.

A command with anything else in it (a loop, a pipe, a call the reader does not know) is not
read: the container runs as the sandbox's kubelet runs every other.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

SHELLS = ("sh", "bash", "ash", "dash")
_STATEMENT_SPLIT = re.compile(r"\n|;|&&|\|\|")
# shell statements read and passed over: they print nothing and do not end the script
_QUIET_COMMANDS = frozenset({"sleep", "true", ":", "set", "export", "cd"})
# Python calls read and passed over
_QUIET_CALLS = frozenset({"time.sleep", "sys.stdout.flush"})


@dataclass(frozen=True)
class Script:
    lines: tuple[str, ...] = ()  # what it prints, in order
    exit_code: int | None = None  # None: it does not end by itself
    oom: bool = False  # it grows until the kernel kills it for its memory

    @property
    def crashes(self) -> bool:
        """It ends with a non-zero code or is killed for its memory."""
        return self.oom or self.exit_code not in (None, 0)


def script_of(container: dict[str, Any]) -> Script | None:
    """The script of a container whose command is `sh -c …` or `python -c …`, else None."""
    words = [str(w) for w in [*(container.get("command") or []), *(container.get("args") or [])]]
    if len(words) < 3 or "-c" not in words[1:-1]:
        return None
    program = PurePosixPath(words[0]).name
    code = words[words.index("-c", 1) + 1]
    if program in SHELLS:
        return _shell(code)
    if program.startswith("python"):
        return _python(code)
    return None


def _shell(code: str) -> Script | None:
    if any(mark in code for mark in ("$", "`", "|", ">", "<")) and "/dev/zero" not in code:
        return None  # expansions, pipes and redirections are not read
    lines: list[str] = []
    for statement in _STATEMENT_SPLIT.split(code):
        try:
            words = shlex.split(statement)
        except ValueError:
            return None
        if not words:
            continue
        if words[0] == "echo":
            lines.append(" ".join(w for w in words[1:] if w not in ("-n", "-e")))
        elif words[0] == "exit":
            return Script(tuple(lines), _int(words[1]) if len(words) > 1 else 0)
        elif words[:2] == ["tail", "/dev/zero"]:
            return Script(tuple(lines), None, oom=True)
        elif words[0] not in _QUIET_COMMANDS:
            return None
    return Script(tuple(lines))


def _python(code: str) -> Script | None:
    try:
        module = ast.parse(code)
    except SyntaxError:
        return None
    lines: list[str] = []
    for statement in module.body:
        printed = _printed(statement)
        if printed is not None:
            lines.append(printed)
            continue
        code_ = _exit_code(statement)
        if code_ is not None:
            return Script(tuple(lines), code_)
        if _grows_forever(statement):
            return Script(tuple(lines), None, oom=True)
        if not _quiet(statement):
            return None
    return Script(tuple(lines))


def _quiet(statement: ast.stmt) -> bool:
    """Imports, assignments of constants and empty lists, sleeps and flushes: read, passed
    over."""
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    if isinstance(statement, ast.Assign):
        return isinstance(statement.value, ast.Constant | ast.List) and not (
            isinstance(statement.value, ast.List) and statement.value.elts
        )
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and _called(call) in _QUIET_CALLS


def _printed(statement: ast.stmt) -> str | None:
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and _called(call) == "print"):
        return None
    words = [a.value for a in call.args if isinstance(a, ast.Constant)]
    return " ".join(str(w) for w in words)


def _exit_code(statement: ast.stmt) -> int | None:
    """N of `raise SystemExit(N)`, `sys.exit(N)`, `exit(N)` (0 without an argument)."""
    if isinstance(statement, ast.Raise):
        call = statement.exc
    elif isinstance(statement, ast.Expr):
        call = statement.value
    else:
        return None
    if not (isinstance(call, ast.Call) and _called(call) in ("SystemExit", "sys.exit", "exit")):
        return None
    if not call.args:
        return 0
    first = call.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, int) else 1


def _grows_forever(statement: ast.stmt) -> bool:
    """`while True:` whose body calls bytearray."""
    if not (isinstance(statement, ast.While) and isinstance(statement.test, ast.Constant)):
        return False
    return bool(statement.test.value) and any(
        isinstance(node, ast.Call) and _called(node) == "bytearray" for node in ast.walk(statement)
    )


def _called(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""


def _int(text: str) -> int:
    try:
        return int(text) & 0xFF  # a process's exit status is one byte
    except ValueError:
        return 2  # sh: exit: Illegal number
