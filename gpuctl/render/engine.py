"""The pure part of gpuctl: user files in, checked Kubernetes objects out. No cluster, ever.

load (line numbers kept) -> kind lookup -> JSON Schema check -> defaults -> template context
(kinds.py) -> Jinja templates -> parsed back and checked -> sorted in install order.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2
import yaml

from gpuctl import constants as c
from gpuctl import workloads
from gpuctl.errors import Problem, RenderError, SpecError
from gpuctl.spec.check import Spec, check_documents, load_specs
from gpuctl.spec.document import Document
from gpuctl.spec.kinds import Kind, Options, pool_isolated
from gpuctl.spec.resources import templates_dir

TEMPLATE_SUFFIX = ".yaml.j2"
# Order in which objects are printed and created (constants.INSTALL_BEFORE_WORKLOADS).
INSTALL_ORDER = (*c.INSTALL_BEFORE_WORKLOADS, *workloads.INSTALL_ORDER, *c.INSTALL_AFTER_WORKLOADS)
_DOCUMENT_SEPARATOR = re.compile(r"^---[ \t]*$", re.MULTILINE)
# Characters YAML will not take raw inside a double-quoted scalar: non-printables (C1 controls,
# DEL, BOM, non-characters, surrogates) and the Unicode line breaks YAML would fold.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


class Quoted(str):
    """Text already made safe to stand as one YAML scalar."""


def quote(value: Any) -> Quoted:
    """The `q` filter: any value as a YAML scalar that cannot reshape the document."""
    if value is None or isinstance(value, bool | int | float):
        return Quoted(json.dumps(value))
    text = json.dumps(str(value), ensure_ascii=False)
    return Quoted(_YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def _require_quoted(value: Any) -> Any:
    """Jinja `finalize`: a template may print only values that went through `| q`."""
    if isinstance(value, Quoted):
        return value
    raise RenderError(f"a template printed {value!r} without the q filter (gpuctl bug)")


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's own cache of compiled templates, like __pycache__: compiling our templates costs
    ~25 ms a process, loading them compiled ~2 ms. Keyed by template source checksum, so an
    edited template is recompiled. GPUCTL_CACHE_DIR moves it; an unwritable place disables it.
    """
    base = os.environ.get("GPUCTL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpuctl"
    )
    directory = os.path.join(base, "jinja")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return None
    if not os.access(directory, os.W_OK):
        return None
    return jinja2.FileSystemBytecodeCache(directory)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_require_quoted,
    )
    env.filters["q"] = quote
    return env


@cache
def template_names(kind: Kind) -> tuple[str, ...]:
    folder = templates_dir() / kind.template_folder
    return tuple(
        f"{kind.template_folder}/{path.name}"
        for path in sorted(folder.iterdir())
        if path.name.endswith(TEMPLATE_SUFFIX)
    )


@dataclass
class Manifest:
    """One rendered Kubernetes object, the text it was rendered as, and the spec it came from."""

    obj: dict[str, Any]
    text: str
    document: Document
    template: str

    @property
    def kind(self) -> str:
        return str(self.obj["kind"])

    @property
    def name(self) -> str:
        return str(self.obj["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.obj["metadata"].get("namespace", ""))

    @property
    def group(self) -> str:
        api_version = str(self.obj["apiVersion"])
        return api_version.split("/", 1)[0] if "/" in api_version else ""

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """(namespace, group, kind, name): what makes an object the same object."""
        return (self.namespace, self.group, self.kind, self.name)

    @property
    def ref(self) -> str:
        """kubectl's way to name it: `job.batch/qwen2`, `service/svc-x`."""
        resource = self.kind.lower() + (f".{self.group}" if self.group else "")
        return f"{resource}/{self.name}"


def render_spec(spec: Spec, options: Options) -> list[Manifest]:
    """The objects for one spec, each parsed back from the rendered text and checked."""
    context, problems = spec.kind.build(spec.document, spec.data, options)
    if problems:
        raise SpecError(problems)
    env = environment()
    manifests = []
    for name in template_names(spec.kind):
        manifests += _parse(env.get_template(name).render(context), name, spec.document)
    return manifests


def _parse(text: str, template: str, document: Document) -> list[Manifest]:
    """Split a template's output into objects, parse each back at once and check it."""
    manifests = []
    for piece in _DOCUMENT_SEPARATOR.split(text):
        if not piece.strip():
            continue
        obj = yaml.load(piece, Loader=yaml.CSafeLoader)
        if obj is None:  # only comments: a template that chose to render nothing
            continue
        _check_object(obj, template)
        manifests.append(Manifest(obj, piece.lstrip("\n"), document, template))
    return manifests


def _check_object(obj: Any, template: str) -> None:
    """What every object we print must have; anything else is a template bug."""
    if not isinstance(obj, dict):
        raise RenderError(f"{template} rendered {type(obj).__name__}, not an object")
    metadata = obj.get("metadata")
    ok = (
        isinstance(obj.get("apiVersion"), str)
        and isinstance(obj.get("kind"), str)
        and isinstance(metadata, dict)
        and isinstance(metadata.get("name"), str)
        and (metadata.get("labels") or {}).get(c.Labels.MANAGED_BY) == c.MANAGED_BY_VALUE
    )
    if not ok:
        raise RenderError(
            f"{template} rendered an object without apiVersion, kind, metadata.name or the "
            f"{c.Labels.MANAGED_BY} label"
        )


def render(paths: Sequence[str], options: Options | None = None) -> list[Manifest]:
    """What `gpuctl render` prints: every object the files describe, in install order
    (namespaces first), with the PriorityClasses their pods name (`with_priority_classes`)."""
    return with_priority_classes(
        render_specs(load_specs(paths, render_problems), options or Options())
    )


def render_documents(documents: Sequence[Document], options: Options) -> list[Manifest]:
    return render_specs(check_documents(documents), options)


def render_problems(specs: Sequence[Spec]) -> list[Problem]:
    """What only rendering finds of specs that passed their checks (e.g. a name too long once
    prefixed), with the default options; none when they render."""
    try:
        render_specs(specs, Options())
    except SpecError as exc:
        return list(exc.problems)
    return []


def render_specs(specs: Sequence[Spec], options: Options) -> list[Manifest]:
    """The objects of specs that passed check_documents, in install order."""
    manifests: list[Manifest] = []
    problems: list[Problem] = []
    for spec in specs:
        try:
            manifests += render_spec(spec, options)
        except SpecError as exc:
            problems += exc.problems
    problems += node_pool_problems(specs)
    if problems:
        raise SpecError(problems)
    return in_install_order(_unique(manifests))


def in_install_order(manifests: Sequence[Manifest]) -> list[Manifest]:
    """Sorted by kind in INSTALL_ORDER (stable: a kind's objects keep their order)."""
    order = {kind: index for index, kind in enumerate(INSTALL_ORDER)}
    return sorted(manifests, key=lambda m: order.get(m.kind, len(order)))


@dataclass(frozen=True)
class NodeLabels:
    """Labels a spec wants on a node it does not own (a pool's nodes)."""

    node: str
    labels: dict[str, str]
    document: Document
    isolated: bool = False  # the node also carries the pool's taint (POOL_TAINT_KEY=<pool>)

    @property
    def taint(self) -> str | None:
        """`runwhere.ai/pool=POOL:NoSchedule` when the pool isolates, as kubectl writes it."""
        pool = self.labels.get(c.Labels.POOL)
        if not self.isolated or pool is None:
            return None
        return f"{c.POOL_TAINT_KEY}={pool}:{c.POOL_TAINT_EFFECT}"


def node_labels(specs: Sequence[Spec]) -> list[NodeLabels]:
    """What create/apply label on nodes (and delete removes), from the kinds that say so (the
    pool kinds: their nodes also carry the pool's taint when it isolates)."""
    return [
        NodeLabels(node, labels, spec.document, pool_isolated(spec.data))
        for spec in specs
        if spec.kind.node_labels is not None
        for node, labels in spec.kind.node_labels(spec.data).items()
    ]


def node_pool_problems(specs: Sequence[Spec]) -> list[Problem]:
    """A node that two pool documents put in two pools (a node belongs to one pool): one
    problem at the later document's entry for it (the pool kinds list their nodes under
    `nodes`). The check `validate`, `create` and `apply` share: it needs no cluster."""
    first: dict[str, NodeLabels] = {}
    problems = []
    for claim in node_labels(specs):
        earlier = first.setdefault(claim.node, claim)
        pool, other = claim.labels.get(c.Labels.POOL), earlier.labels.get(c.Labels.POOL)
        if earlier is claim or pool == other:
            continue
        where = earlier.document.problem(("nodes", earlier.node), "", key=True)
        problems.append(
            claim.document.problem(
                ("nodes", claim.node),
                f"node {claim.node} of pool {pool} is also in pool {other} "
                f"({where.file}:{where.line}), and a node belongs to one pool",
                "keep it in one of the two pools",
                key=True,
            )
        )
    return problems


def _unique(manifests: list[Manifest]) -> list[Manifest]:
    """Two specs must not render the same object. Namespaces are the exception: two quota or
    pool files may well share one, and it is kept once."""
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    result = []
    problems = []
    for manifest in manifests:
        first = seen.setdefault(manifest.identity, manifest)
        if first is manifest:
            result.append(manifest)
        elif manifest.kind != "Namespace":
            problems.append(
                manifest.document.problem(
                    (),
                    f"{manifest.ref} in namespace {manifest.namespace or '(cluster)'} is also "
                    f"rendered by {first.document.source}:{first.document.line}",
                    "give each job its own name",
                )
            )
    if problems:
        raise SpecError(problems)
    return result


def to_yaml(manifests: Sequence[Manifest]) -> str:
    return "---\n".join(m.text if m.text.endswith("\n") else m.text + "\n" for m in manifests)


def to_json(manifests: Sequence[Manifest]) -> str:
    items = [m.obj for m in manifests]
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2) + "\n"


PRIORITY_CLASSES_TEMPLATE = "_shared/priority-classes.yaml.j2"


def render_priority_classes() -> list[Manifest]:
    """The PriorityClasses gpuctl-high/-medium/-low that the jobs' pods name."""
    context = {
        "classes": [
            {
                "name": c.PRIORITY_CLASS_PREFIX + priority,
                "value": value,
                "preemption": c.PRIORITY_PREEMPTION[priority],
                "description": f"gpuctl jobs with priority: {priority}",
            }
            for priority, value in c.PRIORITY_CLASS_VALUES.items()
        ],
        "labels": {c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE},
    }
    return render_template(PRIORITY_CLASSES_TEMPLATE, context, "<priority-classes>")


def priority_class_of(manifest: Manifest) -> str | None:
    """The PriorityClass a workload's pods name; None for other objects, or pods naming none."""
    adapter = workloads.adapter(manifest.kind)
    if adapter is None:
        return None
    name = adapter.pod_spec(manifest.obj).get("priorityClassName")
    return str(name) if name else None


def with_priority_classes(manifests: Sequence[Manifest]) -> list[Manifest]:
    """`manifests` with the PriorityClasses their pods name, each once, before the workloads
    (install order), so that `kubectl apply -f -` of the lot makes pods a cluster without
    gpuctl's classes admits: the API server refuses a pod that names a class it lacks. The
    classes are gpuctl's constants (`gpuctl priority-classes`), never read from a cluster; only
    those named are added, and none when the pods name none (--no-priority-classes). `create`
    and `apply` install the missing ones themselves (gpuctl.verbs.priorities)."""
    named = {name for m in manifests if (name := priority_class_of(m))}
    classes = [m for m in render_priority_classes() if m.name in named]
    return in_install_order([*classes, *manifests])


LOCAL_QUEUE_TEMPLATE = "_shared/local-queue.yaml.j2"


def render_local_queue(pool: str, namespace: str, version: str) -> Manifest:
    """The LocalQueue through which `namespace`'s jobs queue to `pool`'s ClusterQueue, at
    Kueue API version `version`."""
    context = {
        "api_version": f"{c.KUEUE_GROUP}/{version}",
        "pool": pool,
        "namespace": namespace,
        "labels": {
            c.Labels.POOL: pool,
            c.Labels.MANAGED_BY: c.MANAGED_BY_VALUE,
            c.Labels.INSTANCE: pool,
        },
    }
    return render_template(LOCAL_QUEUE_TEMPLATE, context, "<local-queue>")[0]


def render_template(template: str, context: dict[str, Any], origin: str) -> list[Manifest]:
    """Objects gpuctl makes from a shared template rather than a user's spec."""
    text = environment().get_template(template).render(context)
    return _parse(text, template, Document(origin, 0, 1, None))
