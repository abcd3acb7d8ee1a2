"""JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch.

The strategic merge patch knows the merge keys of the lists gpuctl and kubectl touch
(containers, env, ports, volumes, ... by their key) and the directives kubectl sends
(`$patch`, `$setElementOrder/…`, `$retainKeys`, `$deleteFromPrimitiveList/…`).
"""

from __future__ import annotations

import copy
from typing import Any

from gpuctl.sandbox.errors import ApiError, bad_request

_DELETE = object()

MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "ownerReferences": "uid",
    "conditions": "type",
    "hostAliases": "ip",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
    "addresses": "type",
    "taints": "key",
}
PRIMITIVE_MERGE = {"finalizers"}


def json_merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = json_merge_patch(result.get(key), value)
    return result


def _merge_key(name: str, items: list[Any]) -> str | None:
    if name == "ports":
        sample = next((i for i in items if isinstance(i, dict)), {})
        return "containerPort" if "containerPort" in sample else "port"
    return MERGE_KEYS.get(name)


def strategic_merge_patch(original: Any, patch: Any) -> Any:
    result = _smp(original, patch)
    return {} if result is _DELETE else result


def _clean(value: Any) -> Any:
    """A patch value without directives, for places where nothing is merged."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not k.startswith("$") and v is not None}
    if isinstance(value, list):
        return [
            _clean(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")
        ]
    return value


def _smp(original: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "delete":
        return _DELETE
    if directive == "replace" or not isinstance(original, dict):
        return _clean(patch)
    result = dict(original)
    orders: dict[str, list[Any]] = {}
    retain = patch.get("$retainKeys")
    for key, value in patch.items():
        if key in ("$patch", "$retainKeys"):
            continue
        if key.startswith("$setElementOrder/"):
            orders[key.split("/", 1)[1]] = value
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            name = key.split("/", 1)[1]
            result[name] = [v for v in result.get(name) or [] if v not in value]
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            merged = _smp(result.get(key), value)
            if merged is _DELETE:
                result.pop(key, None)
            else:
                result[key] = merged
        elif isinstance(value, list):
            result[key] = _merge_list(key, result.get(key), value)
        else:
            result[key] = value
    if isinstance(retain, list):
        for key in list(result):
            if key not in retain and key in original:
                del result[key]
    for name, order in orders.items():
        if isinstance(result.get(name), list):
            result[name] = _reorder(name, result[name], order)
    return result


def _merge_list(name: str, original: Any, patch: list[Any]) -> list[Any]:
    if not isinstance(original, list):
        original = []
    if name in PRIMITIVE_MERGE:
        return [*original, *(v for v in patch if v not in original)]
    key = _merge_key(name, patch + original)
    if key is None or not all(isinstance(p, dict) for p in patch):
        return [_clean(v) for v in patch]
    if any(p.get("$patch") == "replace" for p in patch):
        return [_clean(p) for p in patch if p.get("$patch") != "replace"]
    result = list(original)
    for item in patch:
        match = next(
            (
                i
                for i, cur in enumerate(result)
                if isinstance(cur, dict) and cur.get(key) == item.get(key)
            ),
            None,
        )
        if item.get("$patch") == "delete":
            if match is not None:
                del result[match]
            continue
        if match is None:
            result.append(_clean(item))
        else:
            merged = _smp(result[match], item)
            if merged is _DELETE:
                del result[match]
            else:
                result[match] = merged
    return result


def prune_unapplied(live: Any, previous: Any, applied: Any) -> None:
    """Remove from `live` what `previous` applied and `applied` no longer does."""
    if not (isinstance(live, dict) and isinstance(previous, dict) and isinstance(applied, dict)):
        return
    for key, before in previous.items():
        if key not in applied:
            live.pop(key, None)
            continue
        now, current = applied[key], live.get(key)
        if isinstance(before, dict):
            prune_unapplied(current, before, now)
        elif isinstance(before, list) and isinstance(now, list) and isinstance(current, list):
            merge_key = _merge_key(key, before + now)
            if merge_key is None or not all(isinstance(i, dict) for i in before + now):
                continue
            kept = {i.get(merge_key) for i in now}
            gone = {i.get(merge_key) for i in before} - kept
            live[key] = [
                i for i in current if not (isinstance(i, dict) and i.get(merge_key) in gone)
            ]
            for item in before:
                match = next((i for i in now if i.get(merge_key) == item.get(merge_key)), None)
                target = next(
                    (
                        i
                        for i in live[key]
                        if isinstance(i, dict) and i.get(merge_key) == item.get(merge_key)
                    ),
                    None,
                )
                if match is not None and target is not None:
                    prune_unapplied(target, item, match)


def _reorder(name: str, items: list[Any], order: list[Any]) -> list[Any]:
    key = _merge_key(name, items)
    if key is None:
        return items
    wanted = [o.get(key) if isinstance(o, dict) else o for o in order]
    ranked = {v: i for i, v in enumerate(wanted)}
    keyed = [
        (ranked.get(i.get(key) if isinstance(i, dict) else i, len(ranked) + n), i)
        for n, i in enumerate(items)
    ]
    return [i for _, i in sorted(keyed, key=lambda t: t[0])]


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise bad_request(f"the server rejected our request due to an error in our request: {path}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _unprocessable(message: str) -> ApiError:
    return ApiError(422, "Invalid", message)


def json_patch(doc: Any, ops: Any) -> Any:
    if not isinstance(ops, list):
        raise bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in ops:
        kind = op.get("op")
        path = _pointer(op.get("path", ""))
        if kind == "add":
            doc = _put(doc, path, copy.deepcopy(op.get("value")), insert=True)
        elif kind == "replace":
            _get(doc, path)
            doc = _put(doc, path, copy.deepcopy(op.get("value")), insert=False)
        elif kind == "remove":
            doc = _remove(doc, path)
        elif kind == "move":
            src = _pointer(op.get("from", ""))
            value = _get(doc, src)
            doc = _put(_remove(doc, src), path, value, insert=True)
        elif kind == "copy":
            doc = _put(
                doc, path, copy.deepcopy(_get(doc, _pointer(op.get("from", "")))), insert=True
            )
        elif kind == "test":
            if _get(doc, path) != op.get("value"):
                raise _unprocessable(
                    f"the server rejected our request due to an error in our request: "
                    f"testing value /{'/'.join(path)} failed"
                )
        else:
            raise bad_request(f"Unexpected kind: {kind}")
    return doc


def _get(doc: Any, path: list[str]) -> Any:
    cur = doc
    for part in path:
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            raise _unprocessable(
                f"the server rejected our request due to an error in our request: "
                f"jsonpatch: path /{'/'.join(path)} does not exist"
            )
    return cur


def _put(doc: Any, path: list[str], value: Any, insert: bool) -> Any:
    if not path:
        return value
    parent = _get(doc, path[:-1])
    last = path[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        if last == "-":
            parent.append(value)
        elif last.isdigit() and int(last) <= len(parent):
            if insert:
                parent.insert(int(last), value)
            else:
                parent[int(last)] = value
        else:
            raise _unprocessable(f"jsonpatch: index {last} out of bounds")
    else:
        raise _unprocessable(f"jsonpatch: path /{'/'.join(path)} does not exist")
    return doc


def _remove(doc: Any, path: list[str]) -> Any:
    parent = _get(doc, path[:-1])
    _get(doc, path)
    if isinstance(parent, dict):
        del parent[path[-1]]
    else:
        del parent[int(path[-1])]
    return doc
