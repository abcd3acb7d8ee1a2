"""The webhook endpoints' request bodies and answers (camelCase, as every other endpoint)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpuctl.server.answers import Answer
from gpuctl.server.bodies import Body
from gpuctl.server.params import DNS_LABEL

EventType = Literal["job.created", "job.running", "job.succeeded", "job.failed", "job.deleted"]


class WebhookCreate(Body):
    url: str = Field(max_length=2048, description="an http:// or https:// URL to POST events to")
    events: list[EventType] = Field(min_length=1, max_length=5)
    namespace: str | None = Field(
        None,
        max_length=63,
        pattern=DNS_LABEL,
        description="whose jobs: an admin's subscription covers every namespace unless it "
        "names one; a user's covers their own",
    )


class WebhookDeliveryRecord(Answer):
    webhookId: str
    event: str
    attempt: int
    at: str
    outcome: str = Field(description="delivered, retrying or gave-up")
    statusCode: int | None
    error: str | None


class WebhookItem(Answer):
    id: str
    url: str
    events: list[str]
    namespace: str | None = Field(description="the namespace it covers; null: every one")
    owner: str
    createdAt: str
    disabled: str | None = Field(description="why it no longer delivers; null while active")


class WebhookCreated(WebhookItem):
    secret: str = Field(description="whsec_...: shown this once; verify signatures with it")


class WebhookList(Answer):
    total: int
    items: list[WebhookItem]


class WebhookDetail(WebhookItem):
    pending: int = Field(description="messages still to deliver")
    deliveries: list[WebhookDeliveryRecord] = Field(description="recent attempts, newest first")


class WebhookDeleted(Answer):
    id: str
    message: str


class WebhookTestQueued(Answer):
    id: str
    webhookId: str
    message: str


class WebhookSecretRotated(Answer):
    id: str
    secret: str = Field(description="the new secret, shown this once")
    previousValidUntil: str = Field(description="until then, requests carry both signatures")
