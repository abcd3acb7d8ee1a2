"""`Idempotency-Key` on POST /jobs and POST /jobs/batch: a client that retries a create it
has no answer to (a timeout, a dropped connection) sends the same key again and gets the first
result instead of a second job.

The key is kept with the job, nowhere else: the workload carries a label with a digest of the
caller and the key (what a repeat selects on), the key itself and a digest of the request (its
route and body) in annotations, and a batch item its index. So a restarted server or another
replica answers a repeat the same way, and the key lives exactly as long as the job.

- same key, same body: 200 with the first answer's `jobId` (nothing is created);
- same key, another body (or the other route): 422 IdempotencyKeyReused, nothing is created;
- two requests with one key at once: the second one's create meets the first one's job (409
  from the cluster), finds it by its key and answers as a repeat.
Keys are the caller's own: two users' equal keys are two keys.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Header

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory.status import WORKLOAD_KINDS
from gpuctl.server import kubeauth
from gpuctl.server.auth import Principal
from gpuctl.server.errors import ApiError
from gpuctl.spec.jobref import job_id
from gpuctl.verbs.create import Marks

HEADER = "Idempotency-Key"
REUSED = "IdempotencyKeyReused"  # the error code of a key sent before with another body
MAX_KEY = 255
KEY = re.compile(rf"[\x21-\x7e]{{1,{MAX_KEY}}}")  # visible ASCII, as HTTP header values
DIGEST_CHARS = 40  # of the caller-and-key label value (a label value holds 63)

KeyHeader = Annotated[
    str | None,
    Header(
        alias=HEADER,
        description="any string up to 255 visible ASCII characters, new for each logical "
        "create: a repeat with the same body answers the first result (200, the same jobId), "
        "with another body 422",
    ),
]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Idempotency:
    """One request's key, for one caller, and the digest of what it asks."""

    key: str
    user: str
    request: str  # digest of the route and the body

    @property
    def label(self) -> str:
        return _digest(self.user, self.key)[:DIGEST_CHARS]

    def marks(self, index: int | None = None) -> Marks:
        annotations = {
            c.IDEMPOTENCY_KEY_ANNOTATION: self.key,
            c.IDEMPOTENCY_REQUEST_ANNOTATION: self.request,
        }
        if index is not None:
            annotations[c.IDEMPOTENCY_INDEX_ANNOTATION] = str(index)
        return Marks({c.Labels.IDEMPOTENCY: self.label}, annotations)


def of_request(key: str | None, principal: Principal, route: str, body: Any) -> Idempotency | None:
    """The request's Idempotency (None without the header); 400 for a malformed key."""
    if key is None:
        return None
    if not KEY.fullmatch(key):
        raise ApiError(
            400,
            "BadIdempotencyKey",
            f"{HEADER} must be 1 to {MAX_KEY} visible ASCII characters (a UUID is fine); "
            "nothing was created",
            field=HEADER,
        )
    request = _digest(route, json.dumps(body, sort_keys=True))
    return Idempotency(key, principal.user, request)


def earlier(
    cluster: ClusterAPI, principal: Principal, idem: Idempotency, home: str | None
) -> dict[int | None, dict[str, Any]]:
    """The workloads an earlier request with this key created, by batch index (None for POST
    /jobs); 422 when that request was another one. `home`: the caller's own namespace (None:
    every namespace they may list)."""

    def read(where: str | None) -> list[dict[str, Any]]:
        selector = f"{c.Labels.IDEMPOTENCY}={idem.label}"
        return [
            obj
            for kind in WORKLOAD_KINDS
            for obj in cluster.list(kind, where, label_selector=selector)
        ]

    if home is not None or not principal.impersonated:
        found = read(home)
    else:
        found = kubeauth.everywhere_or_home(cluster, principal, read)
    by_index: dict[int | None, dict[str, Any]] = {}
    for obj in found:
        annotations = obj["metadata"].get("annotations") or {}
        if annotations.get(c.IDEMPOTENCY_KEY_ANNOTATION) != idem.key:
            continue  # another key of the same digest prefix: not this one
        if annotations.get(c.IDEMPOTENCY_REQUEST_ANNOTATION) != idem.request:
            meta = obj["metadata"]
            raise ApiError(
                422,
                REUSED,
                f"{HEADER} {idem.key!r} was used for another request (it made job "
                f"{job_id(meta['namespace'], meta['name'])}); send a new key for a new job: "
                "nothing was created",
                field=HEADER,
            )
        index = annotations.get(c.IDEMPOTENCY_INDEX_ANNOTATION)
        by_index[int(index) if index is not None and index.isdigit() else None] = obj
    return by_index


def once(
    create: Callable[[], dict[str, Any]], repeat: Callable[[], dict[str, Any] | None]
) -> tuple[dict[str, Any], bool]:
    """(answer, created): `create`, unless the cluster says its job exists already and
    `repeat` finds that job made by the same key and request (a concurrent twin request)."""
    try:
        return create(), True
    except ApiError as exc:
        if exc.status != 409:
            raise
        found = repeat()
        if found is None:
            raise
        return found, False
