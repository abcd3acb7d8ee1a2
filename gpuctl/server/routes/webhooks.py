"""Webhooks: subscribe a URL to job events, list, read (with recent deliveries), delete, send a
test event, rotate the signing secret, enable again after the worker disabled one.

A user's subscription covers their own jobs (their namespace), an admin's every namespace (or
the one it names). Another user's subscription is not found, to them (404), as their jobs are.
With `--auth kubernetes` RBAC decides who is an admin here: a caller the cluster lets list jobs
in every namespace (who may read every job's events anyway); any other caller subscribes to a
namespace whose jobs RBAC lets them list, their own when they name none.
The records live in the cluster, written with the server's own credentials
(gpuctl.server.webhooks.store); deliveries are the worker's (gpuctl.server.webhooks.worker).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from fastapi import APIRouter, Request

from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import Forbidden
from gpuctl.server import kubeauth, limits
from gpuctl.server.auth import Principal, require
from gpuctl.server.deps import Caller, Kube
from gpuctl.server.errors import ApiError, ErrorBody
from gpuctl.server.webhooks import safety, signing, store
from gpuctl.server.webhooks.shapes import (
    WebhookCreate,
    WebhookCreated,
    WebhookDeleted,
    WebhookDetail,
    WebhookList,
    WebhookSecretRotated,
    WebhookTestQueued,
)
from gpuctl.server.webhooks.worker import Settings, event_body
from gpuctl.times import rfc3339

router = APIRouter(tags=["webhooks"])
URL_REFUSED: dict[str, Any] = {
    "model": ErrorBody,
    "description": "the URL resolves to an address webhooks may not reach (loopback, "
    "link-local, private, cluster-internal) and no --webhook-allow-cidr allows it "
    "(WebhookUrlNotAllowed): nothing was changed",
}
MAX_PER_OWNER = 25  # subscriptions one caller may have (each is a ConfigMap and a Secret)
TEST_BURST = 5  # test events of one subscription at once ...
TEST_EVERY = 12.0  # ... then one every 12 s (5 a minute), on each server replica
TEST_LIMITED: dict[str, Any] = {
    "model": ErrorBody,
    "description": f"more than {TEST_BURST} test events of this subscription at once, or "
    f"more than {60 / TEST_EVERY:g} a minute after that, or too many writes of this user at "
    "once (TooManyRequests): nothing was queued; Retry-After says in how many seconds to "
    "try again",
    "headers": {
        "Retry-After": {
            "description": "seconds until the next test event is allowed",
            "schema": {"type": "integer"},
        }
    },
}


def rate_of_test_events() -> limits.PerKeyRate:
    """The rate of test events per subscription (one per app: app.state.webhook_tests)."""
    return limits.PerKeyRate(TEST_BURST, TEST_EVERY, "test events of webhook")


NO_LABEL = "none-such=x"  # a selector no object matches: a list that only asks RBAC


def _settings(request: Request) -> Settings:
    found: Settings = request.app.state.webhooks
    return found


def _store(request: Request) -> ClusterAPI:
    """The server's own connection: webhook records are the server's, not the caller's."""
    found: ClusterAPI = request.app.state.cluster
    return found


def _item(sub: store.Subscription) -> dict[str, Any]:
    return {
        "id": sub.id,
        "url": sub.url,
        "events": list(sub.events),
        "namespace": sub.scope,
        "owner": sub.owner,
        "createdAt": sub.created_at,
        "disabled": sub.disabled,
    }


def _admin(principal: Principal, cluster: ClusterAPI) -> bool:
    """May `principal` subscribe to every namespace and see every caller's subscriptions: a
    token file's admin, or (`cluster` as the caller, --auth kubernetes) one whom RBAC lets list
    jobs in every namespace."""
    if principal.admin:
        return True
    if not principal.impersonated:
        return False
    try:
        cluster.list("Job", None, label_selector=NO_LABEL)  # as them: RBAC answers
    except Forbidden:
        return False
    return True


def _scope(principal: Principal, cluster: ClusterAPI, asked: str | None) -> str | None:
    """The namespace a new subscription covers (None: every one, an admin's only)."""
    if _admin(principal, cluster):
        return asked
    if not principal.impersonated:
        if asked not in (None, principal.user):
            raise ApiError(403, "Forbidden", f"{principal.user} may subscribe to their own jobs")
        return principal.user
    where = asked or kubeauth.namespace_of(cluster, principal)
    cluster.list("Job", where, label_selector=NO_LABEL)  # 403 when RBAC denies it
    return where


def _visible(
    request: Request, principal: Principal, cluster: ClusterAPI, webhook_id: str
) -> store.Subscription:
    sub = store.find(_store(request), webhook_id)
    if sub is None or not (sub.owner == principal.user or _admin(principal, cluster)):
        shown = webhook_id if len(webhook_id) <= 40 else webhook_id[:40] + "..."
        raise ApiError(404, "WebhookNotFound", f"no webhook {shown!r}")
    return sub


def _checked_url(url: str, settings: Settings) -> None:
    try:
        safety.resolve(safety.parse(url), settings.allowed)
    except safety.RefusedUrl as exc:
        message = f"url: {exc}; nothing was created"
        raise ApiError(422, "WebhookUrlNotAllowed", message, field="url") from None


@router.post(
    "/webhooks",
    status_code=201,
    response_model=WebhookCreated,
    responses={422: URL_REFUSED},
    operation_id="createWebhook",
    summary="Subscribe a URL to job events",
)
def create_webhook(
    body: WebhookCreate, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """The answer carries the signing secret, this once. Events are signed as Standard
    Webhooks (webhook-id, webhook-timestamp, webhook-signature headers). The URL must resolve
    to public addresses only, unless the admin allows a range (`--webhook-allow-cidr`): 422
    WebhookUrlNotAllowed otherwise."""
    require(principal, "jobs", "get", None if principal.admin else body.namespace)
    scope = _scope(principal, cluster, body.namespace)
    _checked_url(body.url, _settings(request))
    try:  # one write that other creates (on any replica) conflict with: never over the cap
        sid = store.reserve(_store(request), principal.user, MAX_PER_OWNER)
    except store.CapReached as exc:
        raise ApiError(
            409,
            "TooManyWebhooks",
            f"{principal.user} has {exc.count} webhooks, the most one caller may have: "
            "delete one first (DELETE /webhooks/{webhookId}); nothing was created",
        ) from None
    except store.ReservationBusy as exc:
        raise ApiError(409, "Busy", f"{exc}; nothing was created") from None
    secret = signing.new_secret()
    events = sorted(set(body.events), key=store.EVENTS.index)
    sub = store.create(_store(request), body.url, events, principal.user, scope, secret, sid)
    return {**_item(sub), "secret": secret}


@router.get(
    "/webhooks",
    response_model=WebhookList,
    operation_id="listWebhooks",
    summary="List webhook subscriptions (yours; every user's for an admin)",
)
def list_webhooks(principal: Caller, cluster: Kube, request: Request) -> dict[str, Any]:
    """A user sees the subscriptions they made; an admin sees every user's. The secret is
    never shown again (`POST /webhooks/{webhookId}/rotate` gives a new one)."""
    found = store.listed(_store(request))
    every = _admin(principal, cluster)
    items = [_item(s) for s in found if every or s.owner == principal.user]
    return {"total": len(items), "items": items}


@router.get(
    "/webhooks/{webhookId}",
    response_model=WebhookDetail,
    operation_id="getWebhook",
    summary="One webhook subscription and its recent deliveries",
)
def get_webhook(
    webhookId: str, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """With how many events wait for delivery and the latest deliveries (status, attempts,
    the receiver's answer). Another user's subscription is 404 WebhookNotFound."""
    sub = _visible(request, principal, cluster, webhookId)
    pending = len(store.outbox(_store(request), sub.id))
    return {**_item(sub), "pending": pending, "deliveries": list(sub.deliveries)}


@router.delete(
    "/webhooks/{webhookId}",
    response_model=WebhookDeleted,
    operation_id="deleteWebhook",
    summary="Delete a webhook subscription, its secret and what it had still to deliver",
)
def delete_webhook(
    webhookId: str, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """Nothing more is delivered to its URL: the subscription, its signing secret and the
    events it had still to deliver are deleted together."""
    sub = _visible(request, principal, cluster, webhookId)
    store.delete(_store(request), sub.id)
    message = f"webhook {sub.id} deleted, with its secret and undelivered events"
    return {"id": sub.id, "message": message}


@router.post(
    "/webhooks/{webhookId}/test",
    status_code=202,
    response_model=WebhookTestQueued,
    responses={429: TEST_LIMITED},
    operation_id="testWebhook",
    summary="Send a signed webhook.test event to the subscription's URL",
)
def test_webhook(
    webhookId: str, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """Queued like any event (GET /webhooks/{webhookId} shows its delivery). At most 5 test
    events of one subscription at once, then 5 a minute: 429 TooManyRequests with
    Retry-After beyond."""
    sub = _visible(request, principal, cluster, webhookId)
    rate: limits.PerKeyRate = request.app.state.webhook_tests
    rate.take(sub.id)
    webhook_id = "msg_" + uuid.uuid4().hex
    data = {"webhookId": sub.id, "message": "a test event from gpuctl"}
    body = event_body(store.TEST_EVENT, data)
    queued = store.Message(sub.id, webhook_id, store.TEST_EVENT, body, 0, time.time(), 0.0)
    store.enqueue(_store(request), queued)
    message = f"{store.TEST_EVENT} {webhook_id} queued for webhook {sub.id}"
    return {"id": sub.id, "webhookId": webhook_id, "message": message}


@router.post(
    "/webhooks/{webhookId}/rotate",
    response_model=WebhookSecretRotated,
    operation_id="rotateWebhookSecret",
    summary="Give the subscription a new signing secret",
)
def rotate_webhook_secret(
    webhookId: str, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """The old secret still signs for the overlap (`previousValidUntil`): until then each
    request carries two signatures, and a receiver verifying with either secret accepts it."""
    sub = _visible(request, principal, cluster, webhookId)
    secret = signing.new_secret()
    overlap = _settings(request).overlap
    store.rotate(_store(request), sub.id, secret, overlap)
    until = rfc3339(time.time() + overlap)
    return {"id": sub.id, "secret": secret, "previousValidUntil": until}


@router.post(
    "/webhooks/{webhookId}/enable",
    response_model=WebhookDetail,
    responses={422: URL_REFUSED},
    operation_id="enableWebhook",
    summary="Deliver again to a subscription that was disabled after its failures",
)
def enable_webhook(
    webhookId: str, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    """A subscription is disabled after its deliveries failed for the whole retry window;
    enabling it checks its URL again and delivers new events from then on."""
    sub = _visible(request, principal, cluster, webhookId)
    _checked_url(sub.url, _settings(request))
    store.update(_store(request), sub.id, lambda data: data.update(disabled=""))
    return get_webhook(webhookId, principal, cluster, request)
