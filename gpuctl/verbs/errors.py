"""The errors the verbs raise, in one module, so that a front end maps them (to exit codes,
to HTTP codes) without importing the verbs themselves."""

from __future__ import annotations

from collections.abc import Sequence

from gpuctl.errors import GpuctlError, Problem


class ApplyFailed(GpuctlError):
    """A write failed; the message says which, and how the cluster was left."""


class Unschedulable(ApplyFailed):
    """A request the cluster could never run as asked; nothing was written. `problems`: those
    no node could hold even with the cluster empty, and those whose pods the namespace's Pod
    Security level forbids (`forbidden`, first). Each names the spec field at fault, what is
    wrong and the fix. Where every problem is one that nodes joining could lift
    (`pending_helps`), each front end words how to accept it anyway (the CLI's
    --allow-pending, the REST API's allowPending=true); a forbidden pod is never accepted, as
    no wait lets the cluster create it."""

    def __init__(
        self,
        problems: Sequence[Problem],
        nothing: str = "nothing was changed",
        *,
        forbidden: Sequence[Problem] = (),
    ) -> None:
        self.problems = [*forbidden, *problems]
        self.pending_helps = not forbidden
        lines = "\n".join(str(problem) for problem in self.problems)
        whys = ["no node could ever run this as asked"] if problems else []
        if forbidden:
            whys.append("the namespace's Pod Security level forbids its pods")
        super().__init__(f"{lines}\n{nothing}: {'; '.join(whys)}")


class WaitTimeout(GpuctlError):
    pass


class LockTimeout(GpuctlError):
    """Another run kept the job's lease until our deadline."""


class LabelRefused(GpuctlError):
    """A label key or value gpuctl will not write; nothing was written."""


class Overwritable(GpuctlError):
    """A refusal that asking to overwrite would lift. The message says what is in the way;
    `remedy` what overwriting would do ("replace it"). Each front end words how to ask for it
    (the CLI's `--overwrite`, the REST API's `"overwrite": true`), never the verb."""

    def __init__(self, message: str, remedy: str) -> None:
        super().__init__(message)
        self.remedy = remedy


class LabelConflict(Overwritable, LabelRefused):
    """The node has the key with another value, and overwriting was not asked for."""


class LabelNotFound(LabelRefused):
    """The node has no label with that key (to remove or to read)."""


class CopyFailed(GpuctlError):
    pass


class ScaleRefused(GpuctlError):
    """`scale notebook` asked for something the notebook's spec could not say (whole GPUs and
    a GPU share at once); nothing was written."""
