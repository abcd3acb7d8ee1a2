"""A PATCH request's body applied to the stored object by its patch type (merge, strategic,
JSON patch, server-side apply), and what each field manager applied last, which server-side
apply needs to remove the fields a manager no longer applies."""

from __future__ import annotations

import copy
from typing import Any

from gpuctl.sandbox.errors import ApiError, bad_request
from gpuctl.sandbox.patches import (
    json_merge_patch,
    json_patch,
    prune_unapplied,
    strategic_merge_patch,
)
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj


class Patcher:
    def __init__(self) -> None:
        self.applied: dict[tuple[str, str], Any] = {}  # (uid, fieldManager) → last applied

    def patched(
        self,
        res: Resource,
        old: Obj,
        patch_type: str,
        patch: Any,
        dry_run: bool,
        field_manager: str,
    ) -> Any:
        """The stored object with the patch applied (not yet validated or written)."""
        base = copy.deepcopy(old)
        if patch_type == "merge":
            if not isinstance(patch, dict):
                raise bad_request(
                    "json: cannot unmarshal into Go value of type map[string]interface {}"
                )
            new = json_merge_patch(base, patch)
        elif patch_type in ("strategic", "apply"):
            if res.crd_schema is not None and patch_type == "strategic":
                raise ApiError(
                    415,
                    "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types "
                    "include: application/json-patch+json, application/merge-patch+json, "
                    "application/apply-patch+yaml",
                )
            if not isinstance(patch, dict):
                raise bad_request(
                    "json: cannot unmarshal into Go value of type map[string]interface {}"
                )
            new = strategic_merge_patch(base, patch)
            if patch_type == "apply":
                # server-side apply, approximated: the manager's fields it no longer applies
                # are removed (no managedFields, no conflicts between managers)
                key = (old["metadata"]["uid"], field_manager)
                previous = self.applied.get(key)
                if previous is not None:
                    prune_unapplied(new, previous, patch)
                if not dry_run:
                    self.applied[key] = copy.deepcopy(patch)
        elif patch_type == "json":
            new = json_patch(base, patch)
        else:
            raise ApiError(415, "UnsupportedMediaType", f"unsupported patch type {patch_type}")
        return new
