"""The reading verbs of a resource: get (and the scale and log subresources), list, watch."""

from __future__ import annotations

from typing import Any

from gpuctl.sandbox import tables
from gpuctl.sandbox.listing import list_objects
from gpuctl.sandbox.podlog import PodLog
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.routing import Route
from gpuctl.sandbox.scale import scale_of
from gpuctl.sandbox.selectors import parse_field_selector, parse_label_selector
from gpuctl.sandbox.transport import Exchange
from gpuctl.sandbox.watch import Watch, WatchSelection, wait_for_version


class ResourceReads(Exchange):
    """get, list, watch and the log subresource, answered on one connection."""

    def _get(self, res: Resource, route: Route, query: dict[str, str]) -> None:
        if route.sub == "log":
            self._log(res, route.namespace, route.name, query)
            return
        obj = self.server.sandbox.api.get(res, route.namespace, route.name)
        if route.sub == "scale":
            self._send(200, scale_of(res, obj))
            return
        self._send_object(200, res, obj, [])

    def _list(self, res: Resource, ns: str | None, query: dict[str, str]) -> None:
        api = self.server.sandbox.api
        wait_for_version(self.server.sandbox.store, query)
        result = list_objects(
            api.store,
            res,
            ns,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
            int(query.get("limit") or 0),
            query.get("continue", ""),
        )
        meta: dict[str, Any] = {"resourceVersion": str(result.rv)}
        if result.continue_token:
            meta["continue"] = result.continue_token
            meta["remainingItemCount"] = result.remaining
        if self._wants_table():
            self._send(200, tables.table(res, result.items, result.rv, self._include(), meta))
            return
        # list items leave out kind and apiVersion, as the real server's do
        items = [
            {k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in result.items
        ]
        self._send(
            200,
            {
                "kind": f"{res.kind}List",
                "apiVersion": res.api_version,
                "metadata": meta,
                "items": items,
            },
        )

    def _watch(self, res: Resource, ns: str | None, query: dict[str, str]) -> None:
        sandbox = self.server.sandbox
        selection = WatchSelection(
            res,
            ns,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
            self._include() if self._wants_table() else None,
        )
        watch = Watch.start(sandbox.store, selection, query)
        self._start_stream("application/json")
        try:
            watch.run(
                sandbox.store,
                sandbox.stopping,
                sandbox.config.bookmark_seconds,
                self._chunk,
                self._client_gone,
            )
            self._end_stream()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

    def _log(self, res: Resource, ns: str, name: str, query: dict[str, str]) -> None:
        sandbox = self.server.sandbox
        request = PodLog.start(sandbox.api, res, ns, name, query)
        if not request.options.follow:
            self._send(200, request.text(), content_type="text/plain")
            return
        self._start_stream("text/plain")
        try:
            request.follow(sandbox.api, sandbox.stopping, self._chunk, self._client_gone)
            self._end_stream()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True
