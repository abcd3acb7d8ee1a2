"""A job reference, the way people and URLs name a job: `NAME`, `NAMESPACE/NAME` (kubectl's
form) or `NAMESPACE.NAME` (the REST API's job id: what POST /jobs answers and what the
console links to).

A job's name and a namespace are both DNS-1123 labels (lower-case letters, digits and '-'), so
neither ever holds a '.' or a '/': a reference has at most one of the two, and it always
separates the namespace from the name. `a.b` is job `b` in namespace `a`; there is no job
named `a.b` for it to mean instead. A reference that names no namespace means the one given
with -n, else the kubeconfig context's (the REST API: the caller's own), as in kubectl.
A namespace in the reference and a different one given with -n is an error, not a choice.

Every front end parses job references here, and nowhere else.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gpuctl.errors import UsageError

LABEL = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"
# matched with fullmatch: `$` would also match before a trailing newline ("a.b\n")
_REFERENCE = re.compile(rf"(?:(?P<namespace>{LABEL})[./])?(?P<name>{LABEL})")
FORMS = "NAME, NAMESPACE/NAME or NAMESPACE.NAME"


class BadJobReference(UsageError):
    """Not a job reference at all (a usage error: exit code 2)."""


class NamespaceConflict(UsageError):
    """The reference names one namespace and -n another."""


class JobRef(NamedTuple):
    """What a reference says: the job's name, and its namespace when it names one."""

    namespace: str | None
    name: str
    text: str  # as it was given


class JobKey(NamedTuple):
    """A job located: its namespace and its name."""

    namespace: str
    name: str

    @property
    def id(self) -> str:
        """The canonical job id, `NAMESPACE.NAME` (the REST API's and the console's)."""
        return job_id(self.namespace, self.name)


def job_id(namespace: str, name: str) -> str:
    """The canonical job id of job `name` in `namespace`: `NAMESPACE.NAME`."""
    return f"{namespace}.{name}"


def parse(text: str) -> JobRef:
    """`NAME`, `NAMESPACE/NAME` or `NAMESPACE.NAME`; BadJobReference for anything else."""
    ref = parse_or_none(text)
    if ref is None:
        raise BadJobReference(
            f"{text!r} is not a job reference: give {FORMS} (each lower-case letters, digits "
            "and '-', starting and ending with a letter or digit, at most 63 characters)"
        )
    return ref


def parse_or_none(text: str) -> JobRef | None:
    """`parse`, None for what is not a job reference."""
    match = _REFERENCE.fullmatch(text)
    return JobRef(match.group("namespace"), match.group("name"), text) if match else None


def locate(text: str, namespace_flag: str | None, default_namespace: str) -> JobKey:
    """The job a reference names (see `settle`)."""
    return settle(parse(text), namespace_flag, default_namespace)


def settle(ref: JobRef, namespace_flag: str | None, default_namespace: str) -> JobKey:
    """The job `ref` names: in its own namespace, else -n's (`namespace_flag`), else
    `default_namespace`. A reference naming another namespace than -n is NamespaceConflict."""
    if ref.namespace and namespace_flag and ref.namespace != namespace_flag:
        raise NamespaceConflict(
            f"job {ref.text!r} is in namespace {ref.namespace}, but -n says {namespace_flag}: "
            "give the namespace once"
        )
    return JobKey(ref.namespace or namespace_flag or default_namespace, ref.name)


def locate_all(
    texts: tuple[str, ...] | list[str], namespace_flag: str | None, default_namespace: str
) -> list[JobKey]:
    """Each reference located, in order, once each; every bad one is an error before any job
    is touched."""
    keys: list[JobKey] = []
    for text in texts:
        key = locate(text, namespace_flag, default_namespace)
        if key not in keys:
            keys.append(key)
    return keys
