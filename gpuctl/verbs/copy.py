"""`gpuctl cp`: files between this machine and a notebook, the way `kubectl cp` moves them.

A tar archive travels over the exec stream: to the notebook, `tar -xmf - -C DIR` reads what
gpuctl packed; from it, `tar -cf - -C DIR NAME` writes what gpuctl unpacks. The archive's top
entry is renamed to the destination's name, so `cp a.py nb:/work/b.py` makes /work/b.py, and a
directory is copied as the destination directory. Unpacking uses tarfile's "data" filter:
absolute names, `..`, links out of the destination and device files are refused.
"""

from __future__ import annotations

import io
import posixpath
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gpuctl.cluster.api import ClusterAPI, ExecCluster
from gpuctl.cluster.client import ExecResult
from gpuctl.errors import UsageError
from gpuctl.spec import jobref
from gpuctl.verbs.common import ObjectResult, VerbResult
from gpuctl.verbs.errors import CopyFailed

CHUNK = 256 * 1024
# a remote path is one line: no line break anywhere (fullmatch, so not even a trailing one)
_REMOTE_PATH = re.compile(r"[^\r\n]+")


@dataclass(frozen=True)
class Remote:
    """`NOTEBOOK:PATH`, where NOTEBOOK is a job reference (NAME, NAMESPACE/NAME as kubectl cp
    has it, or NAMESPACE.NAME)."""

    ref: jobref.JobRef
    path: str  # absolute or relative to the container's working directory

    @property
    def notebook(self) -> str:
        return self.ref.name


def parse_remote(word: str) -> Remote | None:
    """`NOTEBOOK:PATH` as a Remote; None for a local path (`./a:b` and `/x:y` stay local) and
    for a PATH that is empty or holds a line break."""
    before, colon, path = word.partition(":")
    ref = jobref.parse_or_none(before)
    if not colon or ref is None or not _REMOTE_PATH.fullmatch(path):
        return None
    return Remote(ref, path)


def plan(source: str, destination: str) -> tuple[Remote | None, Remote | None]:
    """(remote source, remote destination): exactly one side names a notebook."""
    src, dst = parse_remote(source), parse_remote(destination)
    if (src is None) == (dst is None):
        raise UsageError(
            "one side must be NOTEBOOK:PATH and the other a local path, "
            "e.g. gpuctl cp train.py my-notebook:/home/jovyan/work/train.py"
        )
    return src, dst


# ---------------------------------------------------------------------------- to the pod


def pack(local: Path, name: str) -> bytes:
    """`local` (a file or a directory, recursively) as a tar archive whose top entry is `name`."""
    if not local.exists():
        raise CopyFailed(f"{local}: no such file or directory")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        archive.add(str(local), arcname=name, recursive=True)
    return buffer.getvalue()


def chunks(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), CHUNK):
        yield data[start : start + CHUNK]


def unpack_command(remote_path: str, source_name: str) -> tuple[list[str], str]:
    """The command that unpacks into the pod, and the archive's top entry name. A path
    ending in / is a directory to copy into, under the source's name."""
    if remote_path.endswith("/"):
        remote_path += source_name
    path = PurePosixPath(remote_path)
    name = path.name
    if name in ("", ".", ".."):
        raise UsageError(f"{remote_path!r}: name the file or directory to create")
    directory = str(path.parent)
    return ["tar", "-xmf", "-", "-C", directory], name


# -------------------------------------------------------------------------- from the pod


def pack_command(remote_path: str) -> list[str]:
    """The command that packs `remote_path` in the pod."""
    path = PurePosixPath(remote_path)
    if path.name in ("", ".", ".."):
        raise UsageError(f"{remote_path!r}: name the file or directory to copy")
    return ["tar", "-cf", "-", "-C", str(path.parent), path.name]


def unpack(data: bytes, source_name: str, local: Path) -> list[str]:
    """Extract the archive of `source_name` as `local`; the names written, relative to its
    parent directory. Refuses members outside `source_name` and unsafe ones."""
    local = local.resolve() if local.exists() else local.absolute()
    if local.is_dir():  # like cp: into an existing directory, under the source's name
        parent, name = local, source_name
    else:
        parent, name = local.parent, local.name
    if not parent.is_dir():
        raise CopyFailed(f"{parent}: no such directory")
    written = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        members = []
        for member in archive.getmembers():
            member.name = _renamed(member.name, source_name, name)
            members.append(member)
            written.append(member.name)
        try:  # every entry checked before any is written
            for member in members:
                tarfile.data_filter(member, str(parent))
            archive.extractall(path=parent, members=members, filter="data")
        except tarfile.FilterError as exc:
            raise CopyFailed(f"refused an unsafe entry from the notebook: {exc}") from exc
    return written


def _renamed(member: str, source: str, target: str) -> str:
    """`source/x` -> `target/x`; anything not under `source` is refused."""
    normal = posixpath.normpath(member)
    if normal == source:
        return target
    if normal.startswith(source + "/"):
        return target + normal[len(source) :]
    raise CopyFailed(f"refused entry {member!r}: not under {source!r}")


# ----------------------------------------------------------------------------- the copy


def notebook_pod(cluster: ClusterAPI, notebook: str, namespace: str) -> str:
    """The running pod of notebook `notebook`."""
    from gpuctl.inventory import jobs, notebooks

    job = notebooks.find_notebook(cluster, notebook, namespace)
    running = [
        p for p in jobs.pods_of(cluster, job) if (p.get("status") or {}).get("phase") == "Running"
    ]
    if not running:
        raise CopyFailed(
            f"notebook {notebook} has no running pod (see gpuctl describe job {notebook})"
        )
    return str(running[0]["metadata"]["name"])


def _check(result: ExecResult, what: str) -> None:
    """A failed copy in one line: tar's own words (its lines joined), else why the exec
    failed, else the exit code."""
    if result.returncode != 0:
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
        said = "; ".join(line.strip() for line in lines if line.strip())
        raise CopyFailed(f"{what}: {said or result.failure or f'exit code {result.returncode}'}")


@dataclass
class CopyResult(VerbResult):
    """The verb's result (the notebook's pod, written to or read from), and its report line
    `SOURCE -> DESTINATION (what travelled)`."""

    summary: str = ""

    def lines(self) -> list[str]:
        return [self.summary]


@dataclass
class Copy:
    """Copy between here and a notebook; a failed copy raises CopyFailed, naming why."""

    cluster: ExecCluster

    def run(self, source: str, destination: str, namespace: str) -> CopyResult:
        """`namespace`: the notebook's, unless its reference names one."""
        src, dst = plan(source, destination)
        remote = dst or src
        assert remote is not None  # plan: exactly one side is remote
        namespace = remote.ref.namespace or namespace
        if dst is not None:
            local = Path(source)
            command, name = unpack_command(dst.path, local.name)
            data = pack(local, name)
            pod = notebook_pod(self.cluster, dst.notebook, namespace)
            result = self.cluster.exec(pod, namespace, command, stdin=chunks(data))
            _check(result, f"copy to {destination}")
            target = posixpath.join(command[-1], name)
            summary = f"{source} -> {dst.notebook}:{target} ({len(data)} bytes of tar)"
            return _copied(pod, namespace, "written", summary)
        assert src is not None
        pod = notebook_pod(self.cluster, src.notebook, namespace)
        result = self.cluster.exec(pod, namespace, pack_command(src.path))
        _check(result, f"copy from {source}")
        written = unpack(result.stdout, PurePosixPath(src.path).name, Path(destination))
        return _copied(
            pod, namespace, "read", f"{source} -> {destination} ({len(written)} entries)"
        )


def _copied(pod: str, namespace: str, outcome: str, summary: str) -> CopyResult:
    return CopyResult(objects=[ObjectResult("Pod", pod, namespace, outcome)], summary=summary)
