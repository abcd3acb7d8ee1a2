"""Media types beside JSON: a spec sent as `application/yaml`, and answers in YAML.

- A route whose OpenAPI request body lists `application/yaml` (`YAML_SPEC_BODY`) also takes the
  spec itself as its body with that Content-Type: `YamlBodyRoute` turns it into the JSON form
  `{"yamlContent": <the body>}` before FastAPI reads it, so the JSON form's checks (the 1 MiB
  cap of a spec, the error shape) apply to both; the body's caps and the authentication
  before it is read are `limits.Gate`'s, for both alike. A body that is not UTF-8 is 400.
- A list or a read that answers YAML does so for `Accept: application/yaml`, or for
  `?accept=application/yaml` (the query parameter, which generated clients can send): the
  same structure as the JSON answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Annotated, Any, Final, Literal

import yaml
from fastapi import Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.types import Message

from gpuctl.server.bodies import EXAMPLE_SPEC, MAX_YAML
from gpuctl.server.errors import ApiError

YAML: Final = "application/yaml"
JSON: Final = "application/json"
YAML_TYPES: Final = frozenset((YAML, "application/x-yaml", "text/yaml", "text/x-yaml"))
SENT_YAML: Final = "gpuctl.sent_yaml"  # the scope key YamlBodyRoute sets

YAML_SPEC_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "content": {
            YAML: {
                "schema": {"type": "string", "format": "binary", "maxLength": MAX_YAML},
                "example": EXAMPLE_SPEC,
            }
        }
    }
}


def yaml_answer(shape: type[BaseModel]) -> dict[str, Any]:
    """The YAML form of an answer in the document: the same structure as its JSON form."""
    return {
        "description": "the answer; as YAML for Accept: application/yaml (the same structure)",
        "content": {YAML: {"schema": {"$ref": f"#/components/schemas/{shape.__name__}"}}},
    }


Accept = Annotated[
    Literal["application/json", "application/yaml"] | None,
    Query(description="the answer's media type, as the Accept header would ask for it"),
]

Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def wants_yaml(request: Request, accept: str | None) -> bool:
    """Whether the caller asked for YAML: `?accept=`, else the Accept header."""
    if accept is not None:
        return accept == YAML
    return YAML in request.headers.get("accept", "")


def as_requested(request: Request, accept: str | None, body: dict[str, Any]) -> Any:
    """`body` as JSON, or as YAML when the caller asked for it (`wants_yaml`)."""
    if wants_yaml(request, accept):
        text = yaml.safe_dump(body, sort_keys=False, allow_unicode=True)
        return Response(text, media_type=YAML)
    return body


def sent_yaml(request: Request) -> bool:
    """Whether the request's body was the spec itself (YAML), not the JSON form."""
    return bool(request.scope.get(SENT_YAML))


class YamlBodyRoute(APIRoute):
    """A route that takes a YAML spec body where its document says so (see the module)."""

    def get_route_handler(self) -> Handler:
        handler = super().get_route_handler()
        content = (self.openapi_extra or {}).get("requestBody", {}).get("content", {})
        if YAML not in content:
            return handler

        async def handle(request: Request) -> Response:
            if _media_type(request) in YAML_TYPES:
                request = await _as_json_form(request)
            return await handler(request)

        return handle


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def _as_json_form(request: Request) -> Request:
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ApiError(
            400, "BadRequest", f"the YAML body is not UTF-8 (byte {exc.start}): send UTF-8"
        ) from None
    if len(text) > MAX_YAML:
        raise ApiError(
            400,
            "InvalidRequest",
            f"the spec is {len(text)} characters, over the {MAX_YAML} (1 MiB) one spec may have",
        )
    body = json.dumps({"yamlContent": text}).encode()
    headers = [
        (name, value)
        for name, value in request.scope["headers"]
        if name not in (b"content-type", b"content-length")
    ]
    headers += [(b"content-type", JSON.encode()), (b"content-length", str(len(body)).encode())]
    scope = {**request.scope, "headers": headers, SENT_YAML: True}
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await request.receive()

    return Request(scope, receive)
