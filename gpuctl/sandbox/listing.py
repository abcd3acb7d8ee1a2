"""Lists as the real server answers them: selected by label and field, sorted by namespace and
name, cut into pages by `limit` whose continue token holds the first page's snapshot."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from gpuctl.sandbox.errors import ApiError, bad_request
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import (
    FieldRequirement,
    Requirement,
    matches_labels,
    name_from_field_selector,
)
from gpuctl.sandbox.store import Obj, Store


@dataclass
class ListResult:
    items: list[Obj]
    rv: int
    continue_token: str = ""
    remaining: int | None = None


@dataclass(frozen=True)
class _ContinueKey:
    rv: int  # the resourceVersion of the list's first page
    key: tuple[str, str]  # (namespace, name) of the last object sent


def _continue_key(token: str) -> _ContinueKey:
    try:
        data = json.loads(base64.b64decode(token))
        return _ContinueKey(int(data.get("rv") or 0), (str(data["ns"]), str(data["name"])))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise bad_request(f"continue key is not valid: {exc}") from None


def _continue_expired() -> ApiError:
    """The real server's answer to a continue token whose snapshot has been compacted away."""
    return ApiError(
        410,
        "Expired",
        "The provided continue parameter is too old to display a consistent list result. "
        "You can start a new list without the continue parameter.",
    )


def list_objects(
    store: Store,
    res: Resource,
    namespace: str | None,
    labels: list[Requirement] | None = None,
    fields: list[FieldRequirement] | None = None,
    limit: int = 0,
    continue_token: str = "",
) -> ListResult:
    ns = namespace if res.namespaced else None
    after = _continue_key(continue_token) if continue_token else None
    with store.lock:
        rv = store.rv
        only = name_from_field_selector(fields or [])
        if after is not None and after.rv < rv:
            # a continued list shows the snapshot its first page was taken from
            if store.expired(after.rv):
                raise _continue_expired()
            rv = after.rv
            items = store.objects_at(res.key, ns, rv)
        elif only is not None and ns is not None:
            one = store.get(res.key, ns, only)
            items = [one] if one is not None else []
        else:
            items = store.objects(res.key, ns)
    if labels:
        items = [o for o in items if matches_labels(labels, o["metadata"].get("labels"))]
    if fields:
        items = [o for o in items if all(f.matches(o) for f in fields)]
    items.sort(key=lambda o: (o["metadata"].get("namespace", ""), o["metadata"]["name"]))
    start = 0
    if after is not None:
        start = next(
            (
                i
                for i, o in enumerate(items)
                if (o["metadata"].get("namespace", ""), o["metadata"]["name"]) > after.key
            ),
            len(items),
        )
    if limit and start + limit < len(items):
        last = items[start + limit - 1]["metadata"]
        token_text = json.dumps(
            {
                "v": "meta.k8s.io/v1",
                "rv": rv,
                "ns": last.get("namespace", ""),
                "name": last["name"],
            }
        )
        remaining = len(items) - start - limit
        return ListResult(
            items[start : start + limit],
            rv,
            base64.b64encode(token_text.encode()).decode(),
            remaining,
        )
    return ListResult(items[start:], rv)
