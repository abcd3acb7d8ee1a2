"""`page` and `pageSize` (1-based, 20 a page by default) over a list, with its `total`."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from fastapi import Query

T = TypeVar("T")
Page = Annotated[int, Query(ge=1, description="1-based page number")]
PageSize = Annotated[int, Query(alias="pageSize", ge=1, le=1000, description="items a page")]


def page_of(items: list[Any], page: int, page_size: int) -> dict[str, Any]:
    start = (page - 1) * page_size
    return {"total": len(items), "items": items[start : start + page_size]}
