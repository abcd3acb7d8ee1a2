"""Webhook records, all in the cluster (namespace gpuctl-system), so that a restarted server or
another replica has them:

- a subscription is a ConfigMap `gpuctl-webhook-<id>` (its URL, events, owner, the namespace
  it covers, whether it is disabled and why, its recent deliveries);
- its signing secrets are the Secret of the same name (`secret`, and for a while after a
  rotation `previous` with `previousUntil`);
- each message still to deliver is an outbox ConfigMap `gpuctl-webhook-msg-<digest>` (the
  exact body, its webhook-id, attempts so far, when the next is due), named after the
  subscription and the event, so writing it twice writes it once;
- each owner's reservations are a ConfigMap `gpuctl-webhook-owner-<digest of the owner>`: the
  ids of the subscriptions being made. Reserving one is a write of that ConfigMap at the
  resourceVersion read (a Conflict when another create, on any replica, wrote it meanwhile:
  read and count again), so concurrent creates never exceed the owner's cap.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import random
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, Forbidden, NotFound
from gpuctl.errors import GpuctlError
from gpuctl.times import rfc3339

NAMESPACE = c.SYSTEM_NAMESPACE
RECENT = 20  # deliveries kept per subscription
EVENTS = ("job.created", "job.running", "job.succeeded", "job.failed", "job.deleted")
TEST_EVENT = "webhook.test"


class Delivery(TypedDict):
    webhookId: str
    event: str
    attempt: int
    at: str
    outcome: str  # delivered, retrying, gave-up
    statusCode: int | None
    error: str | None


def now_text() -> str:
    return rfc3339(time.time())


@dataclass(frozen=True)
class Subscription:
    id: str
    url: str
    events: tuple[str, ...]
    owner: str
    scope: str | None  # the namespace whose jobs it covers; None: every namespace
    created_at: str
    disabled: str | None  # why it no longer delivers; None while active
    deliveries: tuple[Delivery, ...]

    def covers(self, namespace: str, event: str) -> bool:
        return self.disabled is None and event in self.events and self.scope in (None, namespace)

    @classmethod
    def of(cls, config_map: dict[str, Any]) -> Subscription:
        data = config_map.get("data") or {}
        return cls(
            id=data.get("id", ""),
            url=data.get("url", ""),
            events=tuple(json.loads(data.get("events") or "[]")),
            owner=data.get("owner", ""),
            scope=data.get("scope") or None,
            created_at=data.get("createdAt", ""),
            disabled=data.get("disabled") or None,
            deliveries=tuple(json.loads(data.get("deliveries") or "[]")),
        )


def _name(subscription_id: str) -> str:
    return c.WEBHOOK_PREFIX + subscription_id


def _labels(role: str, subscription_id: str) -> dict[str, str]:
    return {
        c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
        c.Labels.WEBHOOK: role,
        c.Labels.WEBHOOK_SUBSCRIPTION: subscription_id,
    }


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _namespace_exists(cluster: ClusterAPI) -> None:
    """Make gpuctl-system if it is missing. A server that may not create namespaces (the
    documented RBAC does not grant it) is refused even when the namespace exists, which an
    administrator then made: Forbidden is no error here."""
    with contextlib.suppress(AlreadyExists, Forbidden):
        cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})


def new_id() -> str:
    return "wh" + secrets.token_hex(8)


def create(
    cluster: ClusterAPI,
    url: str,
    events: Sequence[str],
    owner: str,
    scope: str | None,
    secret: str,
    sid: str | None = None,
) -> Subscription:
    """Write a new subscription (of id `sid`, reserved before, or a new one) and its secret;
    the subscription as written."""
    _namespace_exists(cluster)
    sid = sid or new_id()
    data = {
        "id": sid,
        "url": url,
        "events": json.dumps(list(events)),
        "owner": owner,
        "scope": scope or "",
        "createdAt": now_text(),
        "disabled": "",
        "deliveries": "[]",
    }
    meta = {"name": _name(sid), "namespace": NAMESPACE, "labels": _labels("subscription", sid)}
    cluster.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data})
    secret_obj = {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": meta,
        "data": {"secret": _b64(secret)},
    }
    cluster.create(secret_obj)
    return Subscription.of({"data": data})


def listed(cluster: ClusterAPI) -> list[Subscription]:
    found = cluster.list("ConfigMap", NAMESPACE, label_selector=f"{c.Labels.WEBHOOK}=subscription")
    return sorted((Subscription.of(obj) for obj in found), key=lambda s: s.created_at)


ID = re.compile(r"wh[0-9a-f]{16}")

# ---------------------------------------------------------------------- reservations

# A reservation that is no subscription (yet) counts this long: a create writes its
# subscription right after reserving it, and one that failed between the two frees its place
# after this. (A subscription deleted this soon after it was made also counts until then.)
RESERVED_SECONDS = 30.0
RESERVE_TRIES = 50


class CapReached(GpuctlError):
    """The owner has `count` subscriptions (or reservations), the most they may."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} subscriptions")
        self.count = count


class ReservationBusy(GpuctlError):
    """Other creates of the same owner kept changing their reservations."""


_owner_locks: dict[str, threading.Lock] = {}
_owner_locks_guard = threading.Lock()


def _owner_lock(owner: str) -> threading.Lock:
    """One create of an owner at a time in this process (another replica's are told apart
    by resourceVersion)."""
    with _owner_locks_guard:
        return _owner_locks.setdefault(owner, threading.Lock())


def _reservations(cluster: ClusterAPI, owner: str) -> dict[str, Any]:
    """The owner's reservations ConfigMap, made (empty) when there is none."""
    digest = hashlib.sha256(owner.encode()).hexdigest()[:32]
    name = c.WEBHOOK_PREFIX + "owner-" + digest
    found = cluster.find("ConfigMap", name, NAMESPACE)
    if found is not None:
        return found
    labels = {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE, c.Labels.WEBHOOK: "owner"}
    made = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "data": {"reserved": "{}"},
    }
    with contextlib.suppress(AlreadyExists):
        return cluster.create(made)
    return cluster.get("ConfigMap", name, NAMESPACE)


def reserve(cluster: ClusterAPI, owner: str, limit: int) -> str:
    """A new subscription id for `owner`, reserved: CapReached when they have `limit`
    subscriptions and recent reservations together. Create the subscription with it at once
    (a reservation lapses after RESERVED_SECONDS)."""
    _namespace_exists(cluster)
    with _owner_lock(owner):
        for _ in range(RESERVE_TRIES):
            ledger = _reservations(cluster, owner)
            reserved: dict[str, float] = json.loads(
                (ledger.get("data") or {}).get("reserved") or "{}"
            )
            existing = {sub.id for sub in listed(cluster) if sub.owner == owner}
            now = time.time()
            pending = {
                sid: at
                for sid, at in reserved.items()
                if sid not in existing and now - at < RESERVED_SECONDS
            }
            count = len(existing) + len(pending)
            if count >= limit:
                raise CapReached(count)
            sid = new_id()
            ledger["data"] = {"reserved": json.dumps({**pending, sid: now})}
            try:
                cluster.replace(ledger)  # at the resourceVersion read: Conflict if changed
            except Conflict:
                time.sleep(random.uniform(0.0, 0.05))
                continue
            return sid
    raise ReservationBusy(f"{owner}'s subscriptions kept changing; try again")


def find(cluster: ClusterAPI, subscription_id: str) -> Subscription | None:
    """The subscription of that id; None for none (or for what is no id of ours)."""
    if not ID.fullmatch(subscription_id):
        return None
    found = cluster.find("ConfigMap", _name(subscription_id), NAMESPACE)
    return Subscription.of(found) if found is not None else None


def delete(cluster: ClusterAPI, subscription_id: str) -> None:
    """The subscription, its secret and its outbox."""
    for kind in ("ConfigMap", "Secret"):
        with contextlib.suppress(NotFound):
            cluster.delete(kind, _name(subscription_id), NAMESPACE, propagation="Background")
    for entry in outbox(cluster, subscription_id):
        drop(cluster, entry)


def secrets_in_force(cluster: ClusterAPI, subscription_id: str) -> list[str]:
    """The current secret, and the previous one while its overlap lasts."""
    found = cluster.find("Secret", _name(subscription_id), NAMESPACE)
    data = (found or {}).get("data") or {}
    plain = {key: base64.b64decode(value).decode() for key, value in data.items()}
    in_force = [plain["secret"]] if "secret" in plain else []
    if "previous" in plain and float(plain.get("previousUntil") or 0) > time.time():
        in_force.append(plain["previous"])
    return in_force


def rotate(cluster: ClusterAPI, subscription_id: str, secret: str, overlap: float) -> None:
    """Make `secret` the current one; the one before stays in force for `overlap` seconds."""
    current = secrets_in_force(cluster, subscription_id)
    data = {"secret": _b64(secret)}
    if current:
        data["previous"] = _b64(current[0])
        data["previousUntil"] = _b64(str(time.time() + overlap))
    cluster.patch("Secret", _name(subscription_id), NAMESPACE, {"data": data})


def update(
    cluster: ClusterAPI, subscription_id: str, change: Callable[[dict[str, str]], None]
) -> None:
    """Apply `change` to the subscription's data, again on a conflict; nothing when it is
    gone."""
    for _ in range(5):
        found = cluster.find("ConfigMap", _name(subscription_id), NAMESPACE)
        if found is None:
            return
        found["data"] = dict(found.get("data") or {})
        change(found["data"])
        try:
            cluster.replace(found)
            return
        except (Conflict, NotFound):
            continue


def record(cluster: ClusterAPI, subscription_id: str, delivery: Delivery) -> None:
    def add(data: dict[str, str]) -> None:
        recent = [delivery, *json.loads(data.get("deliveries") or "[]")][:RECENT]
        data["deliveries"] = json.dumps(recent)

    update(cluster, subscription_id, add)


def set_disabled(cluster: ClusterAPI, subscription_id: str, why: str) -> None:
    def mark(data: dict[str, str]) -> None:
        data["disabled"] = why

    update(cluster, subscription_id, mark)


# ------------------------------------------------------------------------------ outbox


@dataclass(frozen=True)
class Message:
    subscription: str
    webhook_id: str
    event: str
    body: str
    attempts: int
    first_at: float
    next_at: float
    name: str = ""
    resource_version: str = ""


def enqueue(cluster: ClusterAPI, message: Message) -> bool:
    """Write the message to the outbox; False when it is there already (written before)."""
    _namespace_exists(cluster)
    name = c.WEBHOOK_DELIVERY_PREFIX + message.webhook_id.removeprefix("msg_")[:40]
    obj = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": _labels("delivery", message.subscription),
        },
        "data": _message_data(message),
    }
    try:
        cluster.create(obj)
    except AlreadyExists:
        return False
    return True


def _message_data(message: Message) -> dict[str, str]:
    return {
        "subscription": message.subscription,
        "webhookId": message.webhook_id,
        "event": message.event,
        "body": message.body,
        "attempts": str(message.attempts),
        "firstAt": repr(message.first_at),
        "nextAt": repr(message.next_at),
    }


def outbox(cluster: ClusterAPI, subscription_id: str | None = None) -> list[Message]:
    selector = f"{c.Labels.WEBHOOK}=delivery"
    if subscription_id is not None:
        selector += f",{c.Labels.WEBHOOK_SUBSCRIPTION}={subscription_id}"
    messages = []
    for obj in cluster.list("ConfigMap", NAMESPACE, label_selector=selector):
        data = obj.get("data") or {}
        messages.append(
            Message(
                subscription=data.get("subscription", ""),
                webhook_id=data.get("webhookId", ""),
                event=data.get("event", ""),
                body=data.get("body", ""),
                attempts=int(data.get("attempts") or 0),
                first_at=float(data.get("firstAt") or 0),
                next_at=float(data.get("nextAt") or 0),
                name=obj["metadata"]["name"],
                resource_version=obj["metadata"].get("resourceVersion", ""),
            )
        )
    return sorted(messages, key=lambda m: (m.next_at, m.first_at))


def reschedule(cluster: ClusterAPI, message: Message, attempts: int, next_at: float) -> None:
    patch = {"data": {"attempts": str(attempts), "nextAt": repr(next_at)}}
    with contextlib.suppress(NotFound):
        cluster.patch("ConfigMap", message.name, NAMESPACE, patch)


def drop(cluster: ClusterAPI, message: Message) -> None:
    with contextlib.suppress(NotFound):
        cluster.delete("ConfigMap", message.name, NAMESPACE, propagation="Background")
