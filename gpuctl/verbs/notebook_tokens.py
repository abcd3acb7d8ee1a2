"""The tokens of notebooks that set none of their own, generated at create and apply time.

Render names the Secret {name}-notebook-token in the notebook's container (JUPYTER_TOKEN from
its key `token`) and stays pure; create and apply then make the Secret the first time, with a
random token (32 hex digits, like Jupyter's own), owned by the notebook's StatefulSet: deleting
the notebook deletes it (Kubernetes' garbage collector), and a later apply keeps it (the token
does not change under an open browser tab). The pod waits (CreateContainerConfigError) the
moment until it exists.

`gpuctl get notebook` and `describe job` read it back into the notebook's address.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from typing import Any

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.cluster.errors import AlreadyExists, Conflict, KubeError, NotFound
from gpuctl.render.engine import Manifest
from gpuctl.render.notebook_token import secret_name
from gpuctl.verbs.common import DryRun, ObjectResult, VerbResult

TOKEN_BYTES = 16


def ensure(cluster: ClusterAPI, manifests: Sequence[Manifest], dry_run: DryRun) -> VerbResult:
    """Create each missing token Secret of the notebooks among `manifests` (written just
    before), owned by its StatefulSet; one already there is kept, its owner set to the
    StatefulSet as it is now (apply may have replaced it). A Secret that cannot be written is
    a warning: the notebook waits for it."""
    result = VerbResult(dry_run=dry_run)
    for manifest in manifests:
        name = secret_name(manifest)
        if name is None:
            continue
        try:
            outcome = _ensure_one(cluster, manifest, name, dry_run)
        except KubeError as exc:
            result.warnings.append(
                f"secret/{name} (the token of notebook {manifest.name}) could not be written "
                f"({exc}): the notebook waits until it exists"
            )
            continue
        if outcome:
            result.objects.append(ObjectResult("Secret", name, manifest.namespace, outcome))
    return result


def _ensure_one(cluster: ClusterAPI, manifest: Manifest, name: str, dry_run: DryRun) -> str:
    """ "created", or "" when the Secret was there (its owner updated when it changed)."""
    live = cluster.find("Secret", name, manifest.namespace)
    if dry_run is not DryRun.NONE:
        return "created" if live is None else ""
    owner = cluster.get(manifest.kind, manifest.name, manifest.namespace)
    if live is not None and not live["metadata"].get("deletionTimestamp"):
        if [r.get("uid") for r in live["metadata"].get("ownerReferences") or []] == [
            owner["metadata"]["uid"]
        ]:
            return ""
        live["metadata"]["ownerReferences"] = [_owner_reference(owner)]
        try:
            cluster.replace(live)
            return ""
        except (NotFound, Conflict):  # collected with the StatefulSet it had: make it again
            pass
    try:
        cluster.create(_secret(manifest, name, owner))
    except AlreadyExists:
        return ""
    return "created"


def _owner_reference(owner: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": owner.get("apiVersion", "apps/v1"),
        "kind": owner.get("kind", "StatefulSet"),
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }


def _secret(manifest: Manifest, name: str, owner: dict[str, Any]) -> dict[str, Any]:
    labels = manifest.obj["metadata"].get("labels") or {}
    token = secrets.token_hex(TOKEN_BYTES)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {
            "name": name,
            "namespace": manifest.namespace,
            "labels": {
                key: labels[key]
                for key in (c.Labels.MANAGED_BY, c.Labels.INSTANCE, c.Labels.JOB_TYPE)
                if key in labels
            },
            "ownerReferences": [_owner_reference(owner)],
        },
        "data": {c.NOTEBOOK_TOKEN_KEY: base64.b64encode(token.encode()).decode()},
    }
