"""The writing verbs of a resource: update (and the scale subresource), patch by each patch
type, delete and deletecollection with their options, and the access review kubectl asks for."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuctl.sandbox.errors import ApiError, bad_request
from gpuctl.sandbox.listing import list_objects
from gpuctl.sandbox.patches import json_merge_patch, json_patch, strategic_merge_patch
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.routing import Route
from gpuctl.sandbox.scale import scale_of, set_scale
from gpuctl.sandbox.selectors import parse_field_selector, parse_label_selector
from gpuctl.sandbox.transport import Exchange

_PATCH_TYPES = {
    "application/json-patch+json": "json",
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/apply-patch+yaml": "apply",
    "application/apply-patch+cbor": "apply-cbor",
}


@dataclass
class WriteOptions:
    """The query parameters every write takes: dryRun and fieldValidation, checked."""

    dry_run: bool
    field_validation: str
    warnings: list[str] = field(default_factory=list)  # collected while serving the request

    @classmethod
    def of(cls, query: dict[str, str]) -> WriteOptions:
        dry_run = query.get("dryRun") == "All"
        if "dryRun" in query and not dry_run:
            raise bad_request(
                f'dryRun: Unsupported value: "{query["dryRun"]}": supported values: "All"'
            )
        fv = query.get("fieldValidation") or "Warn"
        if fv not in ("Ignore", "Warn", "Strict"):
            raise bad_request(
                f'fieldValidation: Unsupported value: "{fv}": supported values: '
                '"Ignore", "Warn", "Strict"'
            )
        return cls(dry_run, fv)


class ResourceWrites(Exchange):
    """update, patch, delete and deletecollection, answered on one connection."""

    def _access_review(self, res: Resource, body: bytes) -> None:
        """Every SelfSubjectAccessReview is allowed: the sandbox has no authorization."""
        # kubectl sends this one as protobuf; the answer is the same whatever was asked
        ctype = self.headers.get("Content-Type") or ""
        review = {} if "protobuf" in ctype else self._decode_body(body, res)
        review = review if isinstance(review, dict) else {}
        review.setdefault("apiVersion", "authorization.k8s.io/v1")
        review.setdefault("kind", "SelfSubjectAccessReview")
        review.setdefault("metadata", {})
        review["status"] = {"allowed": True, "reason": "the sandbox has no authorization"}
        self._send(201, review)

    def _put(self, res: Resource, route: Route, body: bytes, options: WriteOptions) -> None:
        data = self._decode_body(body, res)
        if route.sub == "scale":
            obj = set_scale(
                self.server.sandbox.api, res, route.namespace, route.name, data, options.dry_run
            )
            self._send(200, obj)
            return
        obj = self.server.sandbox.api.update(
            res,
            route.namespace,
            route.name,
            data,
            subresource=route.sub,
            dry_run=options.dry_run,
            field_validation=options.field_validation,
            warnings=options.warnings,
        )
        self._send_object(200, res, obj, options.warnings)

    def _patch(
        self,
        res: Resource,
        route: Route,
        query: dict[str, str],
        body: bytes,
        options: WriteOptions,
    ) -> None:
        api = self.server.sandbox.api
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        patch_type = _PATCH_TYPES.get(ctype)
        if patch_type is None or patch_type == "apply-cbor":
            raise ApiError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/apply-patch+yaml, application/strategic-merge-patch+json",
            )
        data = self._decode_body(body, res)
        ns, name = route.namespace, route.name
        if route.sub == "scale":
            current = scale_of(res, api.get(res, ns, name))
            patched = (
                json_patch(current, data)
                if patch_type == "json"
                else json_merge_patch(current, data)
                if patch_type == "merge"
                else strategic_merge_patch(current, data)
            )
            self._send(200, set_scale(api, res, ns, name, patched, options.dry_run))
            return
        obj = api.patch(
            res,
            ns,
            name,
            patch_type,
            data,
            subresource=route.sub,
            dry_run=options.dry_run,
            field_validation=options.field_validation,
            warnings=options.warnings,
            field_manager=query.get("fieldManager", ""),
        )
        self._send_object(200, res, obj, options.warnings)

    def _delete(
        self,
        res: Resource,
        route: Route,
        query: dict[str, str],
        body: bytes,
        options: WriteOptions,
    ) -> None:
        api = self.server.sandbox.api
        ns = route.namespace
        delete_options = self._decode_body(body, res) if body else {}
        if not isinstance(delete_options, dict):
            delete_options = {}
        orphan = query.get("orphanDependents", delete_options.get("orphanDependents"))
        propagation = query.get("propagationPolicy") or delete_options.get("propagationPolicy")
        if propagation is None and orphan is not None:
            propagation = "Orphan" if str(orphan).lower() == "true" else "Background"
        grace_text = query.get("gracePeriodSeconds", delete_options.get("gracePeriodSeconds"))
        grace = int(grace_text) if grace_text not in (None, "") else None
        dry_run = options.dry_run or delete_options.get("dryRun") == ["All"]
        if not route.name:
            self._delete_collection(res, ns, query, propagation, grace, dry_run, options.warnings)
            return
        obj = api.deletion.delete(
            res,
            ns,
            route.name,
            propagation=propagation,
            grace=grace,
            dry_run=dry_run,
            preconditions=delete_options.get("preconditions"),
            warnings=options.warnings,
        )
        # 202 only for a deletion still under way that asked orphanDependents=false,
        # as the real handler does; otherwise 200 with the object
        still_there = api.find(res, ns, route.name) is not None and not dry_run
        accepted = still_there and str(orphan).lower() == "false"
        self._send_object(202 if accepted else 200, res, obj, options.warnings)

    def _delete_collection(
        self,
        res: Resource,
        ns: str,
        query: dict[str, str],
        propagation: str | None,
        grace: int | None,
        dry_run: bool,
        warnings: list[str],
    ) -> None:
        api = self.server.sandbox.api
        listed = list_objects(
            api.store,
            res,
            ns or None,
            parse_label_selector(query.get("labelSelector", "")),
            parse_field_selector(query.get("fieldSelector", ""), res.kind),
        )
        deleted = []
        for item in listed.items:
            try:
                deleted.append(
                    api.deletion.delete(
                        res,
                        item["metadata"].get("namespace", ""),
                        item["metadata"]["name"],
                        propagation=propagation,
                        grace=grace,
                        dry_run=dry_run,
                    )
                )
            except ApiError as err:
                if err.code != 404:
                    raise
        self._send(
            200,
            {
                "kind": f"{res.kind}List",
                "apiVersion": res.api_version,
                "metadata": {"resourceVersion": str(self.server.sandbox.store.rv)},
                "items": deleted,
            },
            self._warn_headers(warnings),
        )
