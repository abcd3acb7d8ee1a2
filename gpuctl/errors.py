"""The one exception root. Only the front ends print these and pick exit or HTTP codes."""

from __future__ import annotations

from dataclasses import dataclass


class GpuctlError(Exception):
    """Anything gpuctl reports to a person: one clear message, exit code 1."""

    exit_code = 1


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a user's file, with where it is."""

    file: str
    line: int | None  # 1-based; None when the position is unknown
    column: int | None  # 1-based
    path: str  # dotted field path, e.g. "resources.gpu-type"; "" for the document itself
    message: str
    hint: str = ""

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: "
        if self.path:
            text += f"{self.path}: "
        text += self.message
        if self.hint:
            text += f" ({self.hint})"
        return text


class SpecError(GpuctlError):
    """One or more problems in the user's YAML files."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class UsageError(GpuctlError):
    """The command line itself is wrong (exit code 2, as click and kubectl use)."""

    exit_code = 2


class RenderError(GpuctlError):
    """A template produced something that is not a valid Kubernetes object: a gpuctl bug."""
