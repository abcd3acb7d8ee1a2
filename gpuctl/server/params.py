"""Query parameters shared by the list routes: `page` and `pageSize` (1-based, 20 a page by
default) over a list with its `total`, and filters that end up in a label selector, which must
be label values (anything else could not match, and must not add terms to the selector)."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar
from urllib.parse import parse_qsl

from fastapi import Path, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from gpuctl.server.errors import ApiError

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
Page = Annotated[int, Query(ge=1, description="1-based page number")]
PageSize = Annotated[int, Query(alias="pageSize", ge=1, le=1000, description="items a page")]
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
LabelValue = Annotated[
    str | None, Query(max_length=63, pattern=LABEL_VALUE, description="a label value")
]


def query_of(model: type[M], request: Request) -> M:
    """The request's query parameters as `model`, checked in one validation: what FastAPI does
    for an `Annotated[model, Query()]` parameter, without the inspection of each field that
    FastAPI repeats on every request (a fifth of what a cached job list costs). As FastAPI: the
    last of a repeated parameter counts, unknown ones are ignored, a bad value is a
    RequestValidationError at `query.<name>`. Document the parameters with `query_parameters`."""
    raw = request.scope.get("query_string", b"").decode("latin-1")  # as Starlette decodes it
    try:
        return model.model_validate(dict(parse_qsl(raw, keep_blank_values=True)))
    except ValidationError as exc:
        errors = [{**error, "loc": ("query", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None


def query_parameters(model: type[BaseModel]) -> list[dict[str, Any]]:
    """`model`'s fields as the OpenAPI document's query parameters (for a route's
    `openapi_extra`), as FastAPI writes those of an `Annotated[model, Query()]` parameter: each
    with its description and constraints, and its default unless that is null."""
    document = model.model_json_schema(by_alias=True)
    required = set(document.get("required", ()))
    parameters = []
    for name, schema in document["properties"].items():
        if "default" in schema and schema["default"] is None:
            schema = {key: value for key, value in schema.items() if key != "default"}
        parameter = {"name": name, "in": "query", "required": name in required, "schema": schema}
        if "description" in schema:
            parameter["description"] = schema["description"]
        parameters.append(parameter)
    return parameters


def one_of(name: str, value: str | None, allowed: tuple[str, ...]) -> None:
    """400 InvalidRequest naming the allowed values when a filter's value is none of them (a
    filter that can match nothing is a mistake, not an empty list)."""
    if value is not None and value not in allowed:
        raise ApiError(
            400,
            "InvalidRequest",
            f"{name}: {value!r} is not one of {', '.join(allowed)}",
            field=name,
        )


def page_of(items: list[Any], page: int, page_size: int) -> dict[str, Any]:
    start = (page - 1) * page_size
    return {"total": len(items), "items": items[start : start + page_size]}


DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"
LABEL_KEY = r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
# Names in paths: what cannot name a Kubernetes object is a 400, never sent to the cluster.
NodeName = Annotated[str, Path(max_length=253, pattern=DNS_SUBDOMAIN)]
PoolName = Annotated[str, Path(max_length=63, pattern=DNS_LABEL)]
UserName = Annotated[str, Path(max_length=63, pattern=DNS_LABEL, description="= namespace")]
LabelKey = Annotated[str, Path(max_length=317, pattern=LABEL_KEY)]
