"""Who is calling, and what they may do.

The token file (`gpuctl serve --tokens FILE`) is YAML:

    tokens:
      - {token: "8d0c6f3a1b2e4d5c9a7f", user: ops, role: admin}
      - {token: "sha256:<64 hex digits>", user: alice, role: user}

A token is the secret itself (at least 16 characters) or `sha256:` and the hex SHA-256 of it
(so the file need not hold the secret). Each token names one user: a file that gives the same
token twice (also as the digest of the other) is refused, as is a user named after a system
namespace (`default`, `kube-*`, gpuctl's and its controller's). A user name is a namespace name
(a DNS-1123 label, checked whole: no trailing newline), and each user is listed once, with one
role (a second entry of the same user is refused, whatever its role). Callers send
`Authorization: Bearer <secret>`. Every comparison is between SHA-256 digests with
`hmac.compare_digest`, over every entry (no early exit), and no token is logged.

Without a token file there is no authentication: the server then only listens on a loopback
address, and every caller is the admin `anonymous`.

`gpuctl serve --auth kubernetes` takes Kubernetes bearer tokens instead (gpuctl/server/
kubeauth.py): the cluster says who the caller is (TokenReview) and, every request being made
as them (impersonation), what they may do (its RBAC); their role is then `kubernetes`.

The rules (one function, `decide`, which the routes and `POST /auth/check` both call):
- admin: everything, in every namespace;
- user: jobs only in the namespace named after them (another user's job is 404 to them), reads
  of pools, nodes and node labels, and their own quota; writes to pools, node labels and
  quotas, and other users' quotas, are 403;
- kubernetes: gpuctl refuses nothing; the cluster answers 403 to what RBAC does not allow.

What a workload may carry (`Policy.admit`, which every route that creates workloads applies):
a user's job may mount a host path (`storage.workdirs`) only at or under a prefix the admin
allows (`gpuctl serve --allow-host-path PREFIX`; none by default). Admins and kubernetes
callers are not limited here: their cluster decides (Pod Security admission of the namespace).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

from gpuctl import constants as c
from gpuctl.errors import GpuctlError, Problem, SpecError, UsageError
from gpuctl.server.errors import ApiError
from gpuctl.spec.document import Document, load_text
from gpuctl.workloads import pod_spec_of

if TYPE_CHECKING:
    from gpuctl.render.engine import Manifest

ROLES = ("user", "admin")
KUBERNETES = "kubernetes"  # the role of a caller the cluster authenticated (--auth kubernetes)
_HEX = re.compile(r"[0-9a-f]{64}")  # (every pattern here is used with fullmatch)
MIN_TOKEN = 16  # characters of a secret given as itself
_USER = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # a namespace name (DNS-1123 label)


@dataclass(frozen=True)
class Principal:
    user: str
    role: str  # user, admin, or kubernetes
    groups: tuple[str, ...] = ()  # kubernetes: the groups the token review gave
    home: str | None = None  # kubernetes: the namespace they act in when they name none

    @property
    def admin(self) -> bool:
        return self.role == "admin"

    @property
    def impersonated(self) -> bool:
        """Does the cluster decide for them (every request made as them)?"""
        return self.role == KUBERNETES

    def sees(self, namespace: str) -> bool:
        """May they look into `namespace` at all (else its jobs are not found, to them)?"""
        return self.admin or self.impersonated or namespace == self.user


ANONYMOUS = Principal("anonymous", "admin")


class Authenticator(Protocol):
    """The token file, or the cluster's token reviews: who a bearer token is, or None."""

    def who(self, secret: str) -> Principal | None: ...


@dataclass(frozen=True)
class _Entry:
    digest: bytes
    principal: Principal


class Tokens:
    """The token file, loaded once; `who(secret)` is the principal or None."""

    def __init__(self, entries: list[_Entry]) -> None:
        self._entries = entries

    @classmethod
    def load(cls, path: str) -> Tokens:
        """The token file's entries; GpuctlError (one line: file, line, column, field, what is
        wrong) for a file that breaks a rule. No message ever quotes a token."""
        document = _read(path)
        data = document.data
        items = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(items, list) or not items:
            raise GpuctlError(f"{path}: give `tokens:` as a list of {{token, user, role}}")
        entries: list[_Entry] = []
        for index, item in enumerate(items):
            where = _Where(document, index)
            entry = _entry(where, item)
            for earlier, other in enumerate(entries):
                if hmac.compare_digest(entry.digest, other.digest):
                    raise GpuctlError(
                        where.say(
                            "token",
                            f"the same token as tokens[{earlier}] (also when one is the sha256: "
                            "of the other): give each user a secret of their own",
                        )
                    )
                if entry.principal.user == other.principal.user:
                    raise GpuctlError(where.say("user", _listed_twice(document, earlier, other)))
            entries.append(entry)
        return cls(entries)

    def who(self, secret: str) -> Principal | None:
        given = hashlib.sha256(secret.encode("utf-8")).digest()
        found = None
        for entry in self._entries:  # every entry, whatever matches: constant time
            if hmac.compare_digest(given, entry.digest):
                found = entry.principal
        return found


def _read(path: str) -> Document:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise GpuctlError(f"{path}: cannot read the token file: {reason}") from None
    try:
        documents = load_text(path, text)
    except SpecError as exc:  # the position and the parser's words, never the file's text
        first = exc.problems[0]
        raise GpuctlError(
            str(replace(first, message=f"cannot read the token file: {first.message}"))
        ) from None
    return documents[0]


@dataclass(frozen=True)
class _Where:
    """An entry of the token file, to name in a message: file:line:column: tokens[i].field."""

    document: Document
    index: int

    def say(self, field: str, message: str) -> str:
        path = ("tokens", self.index, field)
        line, column = self.document.position(path)
        return f"{self.document.source}:{line}:{column}: tokens[{self.index}].{field}: {message}"


def _listed_twice(document: Document, earlier: int, other: _Entry) -> str:
    """A user may be listed once, so that they have one role, whichever token they send."""
    line, _ = document.position(("tokens", earlier, "user"))
    user, role = other.principal.user, other.principal.role
    return (
        f"{user} is listed already (tokens[{earlier}], line {line}, role {role}): a user has "
        "one entry, so one token and one role; remove one of them"
    )


def _entry(where: _Where, item: Any) -> _Entry:
    if not isinstance(item, dict):
        raise GpuctlError(where.say("token", "give token, user and role"))
    token, user, role = item.get("token"), item.get("user"), item.get("role", "user")
    if not isinstance(token, str) or not token:
        raise GpuctlError(where.say("token", "give the secret, or sha256:<hex of its SHA-256>"))
    if not isinstance(user, str) or not _USER.fullmatch(user) or len(user) > 63:
        raise GpuctlError(
            where.say(
                "user",
                f"a user name is a namespace name (a DNS-1123 label, e.g. alice), not {user!r}",
            )
        )
    if reserved_namespace(user):
        raise GpuctlError(
            where.say(
                "user",
                f"{user} is a system namespace, and a user's jobs go to the namespace of their "
                "name: choose another name",
            )
        )
    if role not in ROLES:
        raise GpuctlError(where.say("role", f"{role!r} is not one of {', '.join(ROLES)}"))
    return _Entry(_digest(where, token), Principal(user, role))


def _digest(where: _Where, token: str) -> bytes:
    if token.startswith("sha256:"):
        hexdigest = token.removeprefix("sha256:").lower()
        if not _HEX.fullmatch(hexdigest):
            raise GpuctlError(where.say("token", "sha256: takes 64 hex digits"))
        return bytes.fromhex(hexdigest)
    if len(token) < MIN_TOKEN:
        raise GpuctlError(
            where.say(
                "token",
                f"a token has at least {MIN_TOKEN} characters (e.g. `openssl rand -hex 32`)",
            )
        )
    return hashlib.sha256(token.encode("utf-8")).digest()


def reserved_namespace(name: str) -> bool:
    """Is `name` a namespace of the cluster's or gpuctl's own, which no user may be named?"""
    return name in c.RESERVED_NAMESPACES or name.startswith(c.RESERVED_NAMESPACE_PREFIX)


def exposed(path: str) -> str | None:
    """A warning when others than the file's owner may read the token file, else None."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None
    if mode & 0o044 == 0:
        return None
    return (
        f"{path} is readable by group or others (mode {mode:04o}): chmod 600 {path}, or "
        "keep sha256: digests in it instead of the secrets"
    )


def authenticate(tokens: Authenticator | None, authorization: str | None) -> Principal:
    """The caller of a request from its Authorization header; 401 when unknown."""
    if tokens is None:
        return ANONYMOUS
    scheme, _, secret = (authorization or "").partition(" ")
    secret = secret.strip()
    principal = tokens.who(secret) if scheme.lower() == "bearer" and secret else None
    if principal is None:
        raise ApiError(
            401,
            "Unauthorized",
            "give a valid token: Authorization: Bearer <token>",
            {"WWW-Authenticate": "Bearer"},
        )
    return principal


# ----------------------------------------------------------------------------- policy

Resource = Literal["jobs", "pools", "nodes", "labels", "quotas"]
Action = Literal["get", "create", "delete"]
RESOURCES: tuple[str, ...] = get_args(Resource)
ACTIONS: tuple[str, ...] = get_args(Action)


def decide(
    principal: Principal, resource: str, action: str, owner: str | None = None
) -> tuple[bool, str]:
    """May `principal` do `action` on `resource` (owned by user `owner`, for jobs and quotas)?
    (allowed, the reason in words)."""
    if resource not in RESOURCES or action not in ACTIONS:
        return False, f"unknown resource or action: {resource} {action}"
    if principal.impersonated:
        return True, f"the cluster's RBAC decides for {principal.user}"
    if principal.admin:
        return True, f"{principal.user} is an admin"
    if resource == "jobs":
        if owner not in (None, principal.user):
            return False, f"{principal.user} acts only in namespace {principal.user}"
        return True, f"{principal.user} may {action} jobs in namespace {principal.user}"
    if action == "get" and resource in ("pools", "nodes", "labels"):
        return True, f"every user may read {resource}"
    if resource == "quotas" and action == "get" and owner == principal.user:
        return True, f"{principal.user} may read their own quota"
    return False, f"{action} {resource}: admins only"


def require(principal: Principal, resource: str, action: str, owner: str | None = None) -> None:
    allowed, reason = decide(principal, resource, action, owner)
    if not allowed:
        raise ApiError(403, "Forbidden", reason)


# ------------------------------------------------------------------------ host paths

ALLOW_HOST_PATH = "gpuctl serve --allow-host-path PREFIX"
WORKDIRS = ("storage", "workdirs")


def normal_host_path(text: str) -> str | None:
    """An absolute path with `//`, `.` and a trailing `/` taken out, as the kubelet opens it;
    None for a relative path or one with a `..` (which could climb out of any prefix)."""
    if not text.startswith("/"):
        return None
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        return None
    return "/" + "/".join(parts)


def allowed_prefixes(given: Sequence[str]) -> tuple[str, ...]:
    """The admin's `--allow-host-path` values, normalised; UsageError for one that is not an
    absolute path without `..`."""
    found = []
    for text in given:
        normal = normal_host_path(text)
        if normal is None:
            raise UsageError(
                f"--allow-host-path {text}: give an absolute path without '..' (e.g. /data)"
            )
        found.append(normal)
    return tuple(dict.fromkeys(found))


def under(path: str, prefix: str) -> bool:
    """Is normalised `path` the normalised `prefix` or inside it (`/data` holds `/data/x`, not
    `/database`)?"""
    return prefix == "/" or path == prefix or path.startswith(prefix + "/")


@dataclass(frozen=True)
class Policy:
    """The server's rules for what a workload may carry, beyond `decide`."""

    host_paths: tuple[str, ...] = ()  # prefixes under which a token-file user may mount

    def may_mount(self, principal: Principal, path: str) -> tuple[bool, str]:
        """May `principal` mount host path `path`? (allowed, the reason in words)."""
        if principal.admin or principal.impersonated:
            return True, f"the cluster decides host paths for {principal.user}"
        normal = normal_host_path(path)
        if normal is None:
            return False, f"host path {path} is not an absolute path without '..'"
        if any(under(normal, prefix) for prefix in self.host_paths):
            return True, f"{normal} is under an allowed prefix"
        allowed = ", ".join(self.host_paths) if self.host_paths else "none"
        return False, (
            f"host path {path} is not allowed for {principal.user}: users may mount only "
            f"paths under the prefixes the admin allows (now: {allowed})"
        )

    def admit(self, principal: Principal, manifests: Sequence[Manifest]) -> None:
        """403 HostPathNotAllowed naming every host path of these workloads that `principal`
        may not mount, with its field and the rule; nothing is written then."""
        problems = [
            problem
            for manifest in manifests
            for path in _host_paths(manifest.obj)
            if (problem := self._refusal(principal, manifest, path)) is not None
        ]
        if problems:
            raise ApiError(
                403, "HostPathNotAllowed", "; ".join(map(str, problems)), problems=problems
            )

    def _refusal(self, principal: Principal, manifest: Manifest, path: str) -> Problem | None:
        allowed, reason = self.may_mount(principal, path)
        if allowed:
            return None
        hint = f"an admin allows a prefix with `{ALLOW_HOST_PATH}`"
        workdirs = manifest.document.data.get("storage", {}).get("workdirs", [])
        for index, workdir in enumerate(workdirs if isinstance(workdirs, list) else []):
            if isinstance(workdir, dict) and workdir.get("path") == path:
                return manifest.document.problem((*WORKDIRS, index, "path"), reason, hint)
        return Problem(manifest.document.source, None, None, "", reason, hint)


def _host_paths(obj: dict[str, Any]) -> Iterator[str]:
    """The hostPath volumes' paths of an object's pod template (or of a pod)."""
    for volume in pod_spec_of(obj).get("volumes") or []:
        host_path = (volume or {}).get("hostPath")
        if host_path is not None:
            yield str(host_path.get("path", ""))
