"""Server-side validation: the official JSON schemas (from kubernetes-validate), names, labels,
and the type-specific rules and immutable fields gpuctl's objects run into."""

from __future__ import annotations

import json
import math
import re
import threading
import zipfile
from collections.abc import Callable
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import jsonschema_rs

from gpuctl.sandbox import quantity
from gpuctl.sandbox.errors import Cause
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.selectors import label_selector_from_object, matches_labels

SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    r"for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
_INTEGER_FORMATS = {"int32": INT32, "int64": INT64}

# Types whose names must be DNS labels (or DNS-1035 labels for services) rather than subdomains.
_LABEL_NAMED = {"Namespace"}
_DNS1035_NAMED = {"Service"}


def _schema_dir(version: str) -> Traversable:
    """kubernetes-validate's folder of schemas for `version`, or the same folder read from
    kubernetes-json-schema.zip beside it: the single-file binary ships them zipped, since it
    unpacks every file it carries at each start and these are 8,000 small files."""
    import kubernetes_validate  # only for where its schemas live; importing it is slow

    base = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"
    name = f"v{version}.0-local-strict"
    if base.is_dir():
        return base / name
    return zipfile.Path(base.with_suffix(".zip"), f"{name}/")


class UnrepresentableNumber(ValueError):
    """A number in a request body that no Go type can hold (beyond float64, NaN, Infinity)."""


def _shown_number(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _finite_int(text: str) -> int:
    if not math.isfinite(float(text)):  # float() of any length is cheap; int() is not
        raise UnrepresentableNumber(
            f"json: cannot unmarshal number {_shown_number(text)} into Go value of type float64"
        )
    return int(text)


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise UnrepresentableNumber(
            f"json: cannot unmarshal number {_shown_number(text)} into Go value of type float64"
        )
    return number


def _no_constant(text: str) -> Any:
    raise UnrepresentableNumber(f"invalid character '{text[0]}' looking for beginning of value")


def decode_json(body: bytes) -> Any:
    """A JSON request body as the API server's decoder reads it: a number must fit a float64
    (Go's json refuses 1e400 and a 4,000-digit integer), and NaN and Infinity are not JSON
    (Python's json takes them). ValueError otherwise."""
    return json.loads(
        body, parse_int=_finite_int, parse_float=_finite_float, parse_constant=_no_constant
    )


def check_numbers(data: Any) -> None:
    """The same rule for a body decoded from YAML: UnrepresentableNumber for an infinite or
    NaN float, or an integer beyond float64."""
    if isinstance(data, dict):
        for value in data.values():
            check_numbers(value)
    elif isinstance(data, list):
        for value in data:
            check_numbers(value)
    elif isinstance(data, float) and not math.isfinite(data):
        raise UnrepresentableNumber(f"json: unsupported value: {data}")
    elif isinstance(data, int) and not isinstance(data, bool) and data.bit_length() > 1024:
        raise UnrepresentableNumber("json: cannot unmarshal number into Go value of type float64")


def _bound_integer_formats(node: Any) -> None:
    """Give every `format: int32`/`int64` its range (minimum, maximum): Go's decoder refuses a
    number beyond the field's type, and the JSON schemas only name the format."""
    if isinstance(node, dict):
        form = node.get("format")  # a "properties" mapping may name a field `format`
        limits = _INTEGER_FORMATS.get(form) if isinstance(form, str) else None
        if limits is not None:
            node.setdefault("minimum", limits[0])
            node.setdefault("maximum", limits[1])
        for value in node.values():
            _bound_integer_formats(value)
    elif isinstance(node, list):
        for value in node:
            _bound_integer_formats(value)


def _out_of_format(err: Any) -> str:
    """The Go type (`int32`) whose range a number is beyond, or "" for another error: the
    only minimums and maximums in the schemas are those _bound_integer_formats gave."""
    if type(err.kind).__name__ not in ("Maximum", "Minimum"):
        return ""
    limit = getattr(err.kind, "limit", None)
    for go_type, bounds in _INTEGER_FORMATS.items():
        if limit in bounds:
            return go_type
    return ""


class SchemaValidator:
    """One compiled validator per (apiVersion, kind), built on first use and kept."""

    def __init__(self, version: str) -> None:
        self._dir = _schema_dir(version)
        self._lock = threading.Lock()
        self._defs: dict[str, Any] | None = None
        self._validators: dict[tuple[str, str], Any] = {}

    def _validator(self, api_version: str, kind: str) -> Any:
        key = (api_version, kind)
        with self._lock:
            if key in self._validators:
                return self._validators[key]
            group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
            path = self._dir / f"{kind.lower()}-{group_version}.json"
            validator = None
            if path.is_file():
                if self._defs is None:
                    self._defs = json.loads((self._dir / "_definitions.json").read_text())["$defs"]
                    _bound_integer_formats(self._defs)
                text = path.read_text().replace("/api/_definitions.json#/$defs/", "#/$defs/")
                schema = json.loads(text)
                _bound_integer_formats(schema)
                schema["$defs"] = self._defs
                validator = jsonschema_rs.validator_for(schema)
            self._validators[key] = validator
            return validator

    def check(self, obj: dict[str, Any]) -> tuple[list[str], list[Cause], list[str]]:
        """(unknown fields, invalid-value causes, type errors) for one object."""
        validator = self._validator(str(obj.get("apiVersion")), str(obj.get("kind")))
        if validator is None:
            return [], [], []
        unknown: list[str] = []
        causes: list[Cause] = []
        type_errors: list[str] = []
        for err in validator.iter_errors(obj):
            path = _field_path(list(err.instance_path))
            beyond = _out_of_format(err)
            if type(err.kind).__name__ == "Type":
                type_errors.append(
                    f"json: cannot unmarshal {_json_type(err.instance)} into Go struct field "
                    f".{path} of type {_go_type(err.message)}"
                )
            elif beyond:
                type_errors.append(
                    f"json: cannot unmarshal number {err.instance} into Go struct field "
                    f".{path} of type {beyond}"
                )
            else:
                _collect(err, path, unknown, causes)
        return unknown, causes, type_errors


def crd_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A CRD's structural OpenAPI v3 schema as JSON Schema that flags unknown fields."""

    def convert(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        out = {k: convert(v) for k, v in node.items() if not k.startswith("x-kubernetes-")}
        for key in ("properties", "patternProperties"):
            if isinstance(node.get(key), dict):
                out[key] = {k: convert(v) for k, v in node[key].items()}
        if isinstance(node.get("items"), dict):
            out["items"] = convert(node["items"])
        if isinstance(node.get("additionalProperties"), dict):
            out["additionalProperties"] = convert(node["additionalProperties"])
        if node.get("x-kubernetes-int-or-string"):
            out.pop("type", None)
            out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        nullable = out.pop("nullable", None)
        if nullable and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        preserve = node.get("x-kubernetes-preserve-unknown-fields")
        if out.get("type") == "object" and "properties" in out and not preserve:
            out.setdefault("additionalProperties", False)
        return out

    root = convert(schema)
    if isinstance(root, dict):
        props = root.setdefault("properties", {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props["metadata"] = {"type": "object"}
    return root if isinstance(root, dict) else {}


class CrdValidator:
    """Validators for custom resources, one per (CRD schema), built when first needed."""

    def __init__(self) -> None:
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def check(
        self, schema: dict[str, Any], obj: dict[str, Any], subresource: str = ""
    ) -> tuple[list[str], list[Cause]]:
        """Unknown fields and invalid values of `obj`. A write of the status subresource is
        checked against the status schema alone, so its messages name the field from there
        (`retries in body`, where a write of the whole object says `spec.gpuCount in body`)."""
        key = json.dumps(schema, sort_keys=True)
        with self._lock:
            validator = self._cache.get(key)
            if validator is None:
                validator = jsonschema_rs.validator_for(crd_json_schema(schema))
                self._cache[key] = validator
        unknown: list[str] = []
        causes: list[Cause] = []
        for err in validator.iter_errors(obj):
            path = _field_path(list(err.instance_path))
            if type(err.kind).__name__ == "Type":
                types = getattr(err.kind, "types", None) or [_first_quoted(err.message)]
                wanted = types[0] if isinstance(types, list) and types else types
                causes.append(
                    Cause(
                        path,
                        "Invalid value",
                        f"{_in_body(path, subresource)} in body must be of type {wanted}: "
                        f'"{_json_type(err.instance)}"',
                        _json_type(err.instance),
                    )
                )
            else:
                _collect(err, path, unknown, causes)
        return unknown, causes


def _in_body(path: str, subresource: str) -> str:
    return path.removeprefix(f"{subresource}.") if subresource else path


def _collect(err: Any, path: str, unknown: list[str], causes: list[Cause]) -> None:
    """One schema error (other than a type error) as the API server words it: an unknown
    field, a required value, an unsupported enum value, or an invalid value."""
    kind = type(err.kind).__name__
    if kind == "AdditionalProperties":
        for name in getattr(err.kind, "unexpected", None) or re.findall(r"'([^']+)'", err.message):
            unknown.append(f"{path}.{name}" if path else str(name))
    elif kind == "Required":
        missing = getattr(err.kind, "property", None)
        name = missing if isinstance(missing, str) else _first_quoted(err.message)
        causes.append(Cause(f"{path}.{name}" if path else name, "Required value"))
    elif kind == "Enum":
        options = getattr(err.kind, "options", None) or []
        supported = ", ".join(f'"{o}"' for o in options if o is not None)
        causes.append(
            Cause(path, "Unsupported value", f"supported values: {supported}", err.instance)
        )
    else:
        causes.append(Cause(path, "Invalid value", err.message, err.instance))


def _first_quoted(text: str) -> str:
    m = re.search(r'"([^"]+)"', text) or re.search(r"'([^']+)'", text)
    return m.group(1) if m else text


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _go_type(message: str) -> str:
    for word, go in (
        ("integer", "int32"),
        ("boolean", "bool"),
        ("string", "string"),
        ("array", "[]interface {}"),
        ("object", "map[string]interface {}"),
    ):
        if word in message:
            return go
    return "interface {}"


def _field_path(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def validate_name(kind: str, name: str, field: str = "metadata.name") -> list[Cause]:
    if kind in _DNS1035_NAMED:
        ok, msg, limit = DNS1035.fullmatch(name) and len(name) <= 63, DNS1035_MSG, 63
    elif kind in _LABEL_NAMED:
        ok, msg, limit = LABEL.fullmatch(name) and len(name) <= 63, LABEL_MSG, 63
    else:
        ok, msg, limit = SUBDOMAIN.fullmatch(name) and len(name) <= 253, SUBDOMAIN_MSG, 253
    if ok:
        return []
    if len(name) > limit:
        return [Cause(field, "Invalid value", f"must be no more than {limit} characters", name)]
    return [Cause(field, "Invalid value", msg, name)]


def validate_labels(labels: dict[str, Any] | None, field: str) -> list[Cause]:
    causes: list[Cause] = []
    for key, value in (labels or {}).items():
        prefix, _, name = key.rpartition("/")
        if (
            (prefix and not SUBDOMAIN.fullmatch(prefix))
            or not QUALIFIED_NAME.fullmatch(name)
            or len(name) > 63
        ):
            causes.append(
                Cause(
                    field,
                    "Invalid value",
                    "name part must consist of alphanumeric characters, '-', '_' or '.', and "
                    "must start and end with an alphanumeric character",
                    key,
                )
            )
        if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.fullmatch(value):
            causes.append(
                Cause(
                    f"{field}",
                    "Invalid value",
                    "a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                    "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
                    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                    value,
                )
            )
    return causes


def _pod_spec_causes(spec: dict[str, Any], field: str) -> list[Cause]:
    causes: list[Cause] = []
    containers = spec.get("containers")
    if not containers:
        causes.append(Cause(f"{field}.containers", "Required value"))
    seen: set[str] = set()
    for i, c in enumerate(containers or []):
        cf = f"{field}.containers[{i}]"
        name = c.get("name", "")
        if name and not LABEL.fullmatch(name):
            causes.append(Cause(f"{cf}.name", "Invalid value", LABEL_MSG, name))
        if name in seen:
            causes.append(Cause(f"{cf}.name", "Duplicate value", "", name))
        seen.add(name)
        if not c.get("image"):
            causes.append(Cause(f"{cf}.image", "Required value"))
        causes += _resource_causes(c, cf)
    return causes


def _resource_causes(c: dict[str, Any], cf: str) -> list[Cause]:
    """A container's resources: valid quantities, cpu and memory requests within their limits,
    and an extended resource's request equal to its limit."""
    causes: list[Cause] = []
    for part in ("limits", "requests"):
        for rname, value in ((c.get("resources") or {}).get(part) or {}).items():
            if not quantity.is_quantity(value):
                causes.append(
                    Cause(
                        f"{cf}.resources.{part}[{rname}]",
                        "Invalid value",
                        "must be a valid quantity",
                        value,
                    )
                )
    limits = (c.get("resources") or {}).get("limits") or {}
    requests = (c.get("resources") or {}).get("requests") or {}
    for rname in ("cpu", "memory"):
        value, limit = requests.get(rname), limits.get(rname)
        if (
            value is not None
            and limit is not None
            and quantity.is_quantity(value)
            and quantity.is_quantity(limit)
            and quantity.parse(value) > quantity.parse(limit)
        ):
            causes.append(
                Cause(
                    f"{cf}.resources.requests",
                    "Invalid value",
                    f"must be less than or equal to {rname} limit of {limit}",
                    str(value),
                )
            )
    for rname, value in requests.items():
        if (
            "/" in rname
            and not rname.startswith("kubernetes.io/")
            and rname in limits
            and quantity.is_quantity(value)
            and quantity.is_quantity(limits[rname])
            and (quantity.parse(value) != quantity.parse(limits[rname]))
        ):
            causes.append(
                Cause(
                    f"{cf}.resources.requests[{rname}]",
                    "Invalid value",
                    f"must be equal to {rname} limit of {limits[rname]}",
                    value,
                )
            )
    return causes


def _template_causes(
    obj: dict[str, Any], restart_policies: tuple[str, ...], check_selector: bool
) -> list[Cause]:
    spec = obj.get("spec") or {}
    template = spec.get("template") or {}
    causes: list[Cause] = []
    tlabels = (template.get("metadata") or {}).get("labels") or {}
    causes += validate_labels(tlabels, "spec.template.metadata.labels")
    pod_spec = template.get("spec") or {}
    causes += _pod_spec_causes(pod_spec, "spec.template.spec")
    policy = pod_spec.get("restartPolicy")
    if policy not in restart_policies:
        valid = ", ".join(f'"{p}"' for p in restart_policies)
        if policy:
            causes.append(
                Cause(
                    "spec.template.spec.restartPolicy",
                    "Unsupported value",
                    f"supported values: {valid}",
                    policy,
                )
            )
        else:
            causes.append(
                Cause(
                    "spec.template.spec.restartPolicy", "Required value", f"valid values: {valid}"
                )
            )
    if check_selector:
        selector = spec.get("selector")
        if not selector:
            causes.append(Cause("spec.selector", "Required value"))
        elif not matches_labels(label_selector_from_object(selector), tlabels):
            causes.append(
                Cause(
                    "spec.template.metadata.labels",
                    "Invalid value",
                    "`selector` does not match template `labels`",
                    tlabels,
                )
            )
    return causes


def type_causes(res: Resource, obj: dict[str, Any]) -> list[Cause]:
    """Rules the schemas cannot express, per kind."""
    check = _TYPE_RULES.get(res.kind)
    return check(obj) if check is not None else []


def _pod_causes(obj: dict[str, Any]) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = _pod_spec_causes(spec, "spec")
    if spec.get("restartPolicy") not in (None, "Always", "OnFailure", "Never"):
        causes.append(
            Cause(
                "spec.restartPolicy",
                "Unsupported value",
                'supported values: "Always", "OnFailure", "Never"',
                spec.get("restartPolicy"),
            )
        )
    return causes


def _job_causes(obj: dict[str, Any]) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = _template_causes(obj, ("OnFailure", "Never"), check_selector=True)
    if spec.get("completionMode") == "Indexed" and spec.get("completions") is None:
        causes.append(
            Cause("spec.completions", "Required value", "when completion mode is Indexed")
        )
    for f in ("parallelism", "completions", "backoffLimit"):
        if isinstance(spec.get(f), int) and spec[f] < 0:
            causes.append(
                Cause(f"spec.{f}", "Invalid value", "must be greater than or equal to 0", spec[f])
            )
    return causes


def _workload_causes(obj: dict[str, Any]) -> list[Cause]:
    """Deployments, ReplicaSets and StatefulSets."""
    spec = obj.get("spec") or {}
    causes = _template_causes(obj, ("Always",), check_selector=True)
    if isinstance(spec.get("replicas"), int) and spec["replicas"] < 0:
        causes.append(
            Cause(
                "spec.replicas",
                "Invalid value",
                "must be greater than or equal to 0",
                spec["replicas"],
            )
        )
    return causes


def _service_causes(obj: dict[str, Any]) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = []
    for i, port in enumerate(spec.get("ports") or []):
        node_port = port.get("nodePort")
        if node_port and not 30000 <= node_port <= 32767:
            causes.append(
                Cause(
                    f"spec.ports[{i}].nodePort",
                    "Invalid value",
                    "provided port is not in the valid range. The range of valid ports is "
                    "30000-32767",
                    node_port,
                )
            )
        if node_port and spec.get("type", "ClusterIP") == "ClusterIP":
            causes.append(
                Cause(
                    f"spec.ports[{i}].nodePort",
                    "Forbidden",
                    "may not be used when `type` is 'ClusterIP'",
                )
            )
    if spec.get("type", "ClusterIP") != "ClusterIP" and spec.get("clusterIP") == "None":
        causes.append(
            Cause(
                "spec.clusterIPs[0]",
                "Invalid value",
                "may not be set to 'None' for LoadBalancer services",
                ["None"],
            )
            if spec.get("type") == "LoadBalancer"
            else Cause("spec.type", "Invalid value", "", spec.get("type"))
        )
    return causes


def _quota_causes(obj: dict[str, Any]) -> list[Cause]:
    hard = (obj.get("spec") or {}).get("hard") or {}
    return [
        Cause(f"spec.hard[{rname}]", "Invalid value", "must be a valid quantity", value)
        for rname, value in hard.items()
        if not quantity.is_quantity(value)
    ]


def _disruption_budget_causes(obj: dict[str, Any]) -> list[Cause]:
    spec = obj.get("spec") or {}
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        both = "minAvailable and maxUnavailable cannot be both set"
        return [Cause("spec", "Invalid value", both)]
    return []


_TYPE_RULES: dict[str, Callable[[dict[str, Any]], list[Cause]]] = {
    "PodDisruptionBudget": _disruption_budget_causes,
    "Pod": _pod_causes,
    "Job": _job_causes,
    "Deployment": _workload_causes,
    "ReplicaSet": _workload_causes,
    "StatefulSet": _workload_causes,
    "Service": _service_causes,
    "ResourceQuota": _quota_causes,
}


def _selector_text(selector: dict[str, Any] | None) -> str:
    labels = (selector or {}).get("matchLabels")
    exprs = (selector or {}).get("matchExpressions")
    ml = (
        "map[string]string{" + ", ".join(f'"{k}":"{v}"' for k, v in sorted(labels.items())) + "}"
        if labels
        else "map[string]string(nil)"
    )
    me = "[]v1.LabelSelectorRequirement(nil)" if not exprs else "[]v1.LabelSelectorRequirement{...}"
    return f"v1.LabelSelector{{MatchLabels:{ml}, MatchExpressions:{me}}}"


class _Raw:
    """A value rendered verbatim in a cause message (Go's %#v of a struct)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


_STS_MUTABLE = {
    "replicas",
    "template",
    "updateStrategy",
    "minReadySeconds",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
}


def immutable_causes(res: Resource, old: dict[str, Any], new: dict[str, Any]) -> list[Cause]:
    """Fields that may not change on update."""
    kind = res.kind
    o, n = old.get("spec") or {}, new.get("spec") or {}
    if kind == "Job":
        return _job_immutable_causes(o, n)
    if kind in ("Deployment", "ReplicaSet"):
        return _selector_causes(o, n)
    if kind == "StatefulSet":
        return _statefulset_immutable_causes(o, n)
    if kind == "Service":
        return _service_immutable_causes(o, n)
    if kind == "PriorityClass" and old.get("value") != new.get("value"):
        return [Cause("value", "Forbidden", "may not be changed in an update.")]
    return []


def _selector_causes(o: dict[str, Any], n: dict[str, Any]) -> list[Cause]:
    if o.get("selector") == n.get("selector"):
        return []
    return [
        Cause(
            "spec.selector",
            "Invalid value",
            "field is immutable",
            _Raw(_selector_text(n.get("selector"))),
        )
    ]


def _job_immutable_causes(o: dict[str, Any], n: dict[str, Any]) -> list[Cause]:
    causes = _selector_causes(o, n)
    if _comparable_template(o.get("template")) != _comparable_template(n.get("template")):
        causes.append(
            Cause(
                "spec.template",
                "Invalid value",
                "field is immutable",
                _Raw("core.PodTemplateSpec{...}"),
            )
        )
    if o.get("completionMode", "NonIndexed") != n.get("completionMode", "NonIndexed"):
        causes.append(
            Cause(
                "spec.completionMode",
                "Invalid value",
                "field is immutable",
                n.get("completionMode"),
            )
        )
    return causes


def _statefulset_immutable_causes(o: dict[str, Any], n: dict[str, Any]) -> list[Cause]:
    if {k: v for k, v in o.items() if k not in _STS_MUTABLE} == {
        k: v for k, v in n.items() if k not in _STS_MUTABLE
    }:
        return []
    return [
        Cause(
            "spec",
            "Forbidden",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
            "'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden",
        )
    ]


def _service_immutable_causes(o: dict[str, Any], n: dict[str, Any]) -> list[Cause]:
    if not (o.get("clusterIP") and n.get("clusterIP") and o["clusterIP"] != n["clusterIP"]):
        return []
    return [
        Cause(
            "spec.clusterIPs[0]",
            "Invalid value",
            "may not change once set",
            _Raw(f'[]string{{"{n["clusterIP"]}"}}'),
        ),
        Cause("spec.clusterIP", "Invalid value", "field is immutable", n["clusterIP"]),
    ]


def _comparable_template(template: Any) -> Any:
    return json.dumps(template, sort_keys=True)


@cache
def schema_validator(version: str) -> SchemaValidator:
    return SchemaValidator(version)
