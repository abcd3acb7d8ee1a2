"""The token Secret a rendered notebook reads (JUPYTER_TOKEN from its key `token`), when it
sets no token of its own. Pure: create and apply make the Secret (gpuctl.verbs.notebook_tokens);
render prints the kubectl command that makes one."""

from __future__ import annotations

from gpuctl import constants as c
from gpuctl.render.engine import Manifest
from gpuctl.workloads import pod_spec_of


def secret_name(manifest: Manifest) -> str | None:
    """The token Secret a rendered StatefulSet's container reads, None when it reads none."""
    if manifest.kind != "StatefulSet":
        return None
    for container in pod_spec_of(manifest.obj).get("containers") or []:
        for item in container.get("env") or []:
            ref = (item.get("valueFrom") or {}).get("secretKeyRef") or {}
            if item.get("name") == c.NOTEBOOK_TOKEN_ENV and ref.get("name"):
                return str(ref["name"])
    return None
