"""Which resource, namespace, name and subresource a request's path names, and the verb
(get, list, watch, create, ...) that its method and query make of it."""

from __future__ import annotations

from gpuctl.sandbox.errors import ApiError
from gpuctl.sandbox.resources import Registry, Resource


class Route:
    def __init__(self) -> None:
        self.res: Resource | None = None
        self.namespace = ""
        self.name = ""
        self.sub = ""
        self.watch_path = False

    def resource_path(self) -> str:
        """The resource as the request log and the faults name it: plural[/subresource]."""
        if self.res is None:
            return ""
        return self.res.plural + (f"/{self.sub}" if self.sub else "")


def route_of(registry: Registry, path: str) -> Route | None:
    """None for discovery and friends; otherwise which resource the path names."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 3 and parts[0] == "api" and parts[1] == "v1":
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 4 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    route = Route()
    if rest and rest[0] == "watch":
        route.watch_path = True
        rest = rest[1:]
    if len(rest) >= 3 and rest[0] == "namespaces":
        res = registry.lookup(group, version, rest[2])
        if res is not None and res.namespaced:
            route.namespace = rest[1]
            rest = rest[2:]
    if not rest:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    res = registry.lookup(group, version, rest[0])
    if res is None or len(rest) > 3:
        raise ApiError(404, "NotFound", "the server could not find the requested resource")
    route.res = res
    if len(rest) >= 2:
        route.name = rest[1]
    if len(rest) == 3:
        if rest[2] not in res.subresources:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        route.sub = rest[2]
    return route


def verb_of(method: str, route: Route, query: dict[str, str]) -> str:
    if method == "GET":
        if route.name:
            return "get"
        return (
            "watch" if route.watch_path or query.get("watch") in ("1", "true", "True") else "list"
        )
    if method == "POST":
        return "create"
    if method == "PUT":
        return "update"
    if method == "PATCH":
        return "patch"
    if method == "DELETE":
        return "delete" if route.name else "deletecollection"
    return method.lower()
