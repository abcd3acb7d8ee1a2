"""Jobs: create (one, or a batch), list, read, delete, logs and metrics.

A job's id is `<namespace>.<name>`: stable, unique in the cluster, URL-safe, and what POST
returns is what GET and DELETE take. They also take the other forms of a job reference
(gpuctl.spec.jobref): `<name>` alone, for a job in the caller's own namespace, and
`<namespace>/<name>` (in a path, its slash escaped: gpuctl.server.paths). Answers always give
the id as `<namespace>.<name>`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, JsonValue

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI, FullClusterAPI
from gpuctl.inventory import jobs as inventory
from gpuctl.inventory import status as rules
from gpuctl.server import answers, bodies, deps, etags, idempotency, kubeauth, media, specs
from gpuctl.server.auth import Principal, require
from gpuctl.server.deps import Caller, Kube, caught_up, from_lists, remembered
from gpuctl.server.errors import ApiError, ErrorBody, body_of, verb_failed
from gpuctl.server.params import (
    DNS_LABEL,
    LABEL_VALUE,
    one_of,
    page_of,
    query_of,
    query_parameters,
)
from gpuctl.server.views import JOB_STATUS, job_detail, job_item, status_word
from gpuctl.spec import jobref
from gpuctl.spec.check import Spec
from gpuctl.spec.jobref import JobKey
from gpuctl.spec.kinds import job_kinds
from gpuctl.times import rfc3339
from gpuctl.verbs.create import Marks

router = APIRouter(tags=["jobs"], route_class=media.YamlBodyRoute)
JOB_ID_WORDS = (
    "the job: `<namespace>.<name>` (its id, as POST /jobs answers), `<namespace>/<name>` (in "
    "a path, its slash escaped: `%2F`) or `<name>` alone, for a job in the caller's own namespace"
)
JobIdPath = Annotated[str, Path(description=JOB_ID_WORDS)]


def locate(principal: Principal, cluster: ClusterAPI, reference: str) -> JobKey:
    """The job a reference names, when the caller may see it; 404 otherwise (another user's
    job is not found, to them). A reference without a namespace means the caller's own: a
    token-file user's, a kubernetes caller's (their token's, else the server's), an admin's
    the server's (as kubectl's context namespace)."""
    ref = jobref.parse_or_none(reference)
    namespace = "" if ref is None else ref.namespace or _home_namespace(cluster, principal)
    if ref is None or not principal.sees(namespace):
        raise ApiError(404, "JobNotFound", f"no job {reference!r}")
    return JobKey(namespace, ref.name)


def _home_namespace(cluster: ClusterAPI, principal: Principal) -> str:
    return _own_namespace(principal) or kubeauth.namespace_of(cluster, principal)


def _own_namespace(principal: Principal) -> str | None:
    """The namespace a token-file user's jobs must go to; None when the caller may choose."""
    return None if principal.admin or principal.impersonated else principal.user


def _own_namespace_only(principal: Principal, spec: Spec) -> None:
    """A token-file user's jobs run in their own namespace: a spec that names another one is
    refused (403, as kubectl refuses an object whose namespace is not the one it acts in),
    never moved there silently."""
    own = _own_namespace(principal)
    named = (spec.data.get("job") or {}).get("namespace")
    if own is not None and named not in (None, own):
        raise ApiError(
            403,
            "Forbidden",
            f"{spec.document.source}: job.namespace: {principal.user} acts only in namespace "
            f"{own}, not {named} (leave job.namespace out)",
            field="job.namespace",
        )


def _default_namespace(cluster: ClusterAPI, principal: Principal) -> str | None:
    """Where a job goes when its spec names no namespace; None: the spec's kind decides."""
    return kubeauth.namespace_of(cluster, principal) if principal.impersonated else None


AllowPending = Annotated[
    bool,
    Query(
        alias="allowPending",
        description="accept a job that no node could ever hold as asked (a GPU type no node "
        "carries, a pod larger than any node, a pool without nodes): it waits, pending, for "
        "nodes that join; without it such a job is 422 Unschedulable and nothing is created",
    ),
]


@router.post(
    "/jobs",
    operation_id="createJob",
    description=(
        'Creates the job a spec describes: JSON `{"yamlContent": ...}`, or the spec itself with'
        " `Content-Type: application/yaml`. One job per request (`POST /jobs/batch` for "
        "several); a user's job goes to their own namespace. Answers 201 with the job's id "
        "(`<namespace>.<name>`), which `GET` and `DELETE /jobs/{jobId}` take."
    ),
    status_code=201,
    response_model=answers.JobCreated,
    responses={
        200: {"model": answers.JobCreated, "description": "a repeated Idempotency-Key"},
        422: {
            "model": ErrorBody,
            "description": "the Idempotency-Key was sent before with another body "
            "(IdempotencyKeyReused), or the cluster refused the job's objects (ClusterRefused,"
            " Refused, CreateFailed): nothing was created",
        },
    },
    summary="Create a job from its YAML spec",
    openapi_extra=media.YAML_SPEC_BODY,
)
def create_job(
    body: bodies.JobCreate,
    principal: Caller,
    cluster: Kube,
    request: Request,
    response: Response,
    idempotency_key: idempotency.KeyHeader = None,
    allow_pending: AllowPending = False,
) -> dict[str, Any]:
    """201 with the new job; with an `Idempotency-Key` that an earlier request with the same
    body sent, 200 with that request's job (nothing is created), 422 when its body differed."""
    require(principal, "jobs", "create")
    idem = idempotency.of_request(idempotency_key, principal, "POST /jobs", body.yaml_content)
    source = "request body" if media.sent_yaml(request) else specs.SOURCE
    if idem is None:
        return _create_one(cluster, principal, body.yaml_content, source, request, allow_pending)

    def repeat() -> dict[str, Any] | None:
        found = idempotency.earlier(cluster, principal, idem, _own_namespace(principal))
        return _created_before(found[None]) if None in found else None

    answer = repeat()
    if answer is None:
        answer, created = idempotency.once(
            lambda: _create_one(
                cluster, principal, body.yaml_content, source, request, allow_pending, idem.marks()
            ),
            repeat,
        )
    else:
        created = False
    if not created:
        response.status_code = 200
    return answer


def _created_before(workload: dict[str, Any]) -> dict[str, Any]:
    """The answer to a repeated Idempotency-Key: the job its first request created, now."""
    item = job_item(workload, None)
    return {
        **{key: item[key] for key in ("jobId", "name", "namespace", "kind", "status")},
        "createdAt": item["createdAt"] or "",
        "message": f"job {item['jobId']} was created by an earlier request with this "
        "Idempotency-Key; nothing new was created",
        "warnings": [],
    }


def _create_one(
    cluster: ClusterAPI,
    principal: Principal,
    text: str,
    source: str,
    request: Request,
    allow_pending: bool,
    marks: Marks | None = None,
) -> dict[str, Any]:
    def one_job(checked: Sequence[Spec]) -> None:
        specs.only_kinds(checked, jobs=True, where="POST /jobs")
        if len(checked) != 1:
            raise ApiError(400, "OneJobOnly", "give one job a yamlContent (POST /jobs/batch: more)")
        _own_namespace_only(principal, checked[0])

    def namespaces() -> tuple[str | None, str | None]:
        return _own_namespace(principal), _default_namespace(cluster, principal)

    work = specs.workset(cluster, text, source, admit=one_job, namespaces=namespaces)
    workload = next(m for m in work.manifests if m.kind in rules.WORKLOAD_KINDS)
    result = specs.create(
        cluster, work, principal, request.app.state.policy, marks, allow_pending=allow_pending
    )
    caught_up(request, workload.kind, [workload.name], workload.namespace)
    return {
        "jobId": jobref.job_id(workload.namespace, workload.name),
        "name": workload.name,
        "namespace": workload.namespace,
        "kind": work.specs[0].kind.name,
        "status": "pending",
        "createdAt": rfc3339(time.time()),
        "message": "; ".join(result.lines()),
        "warnings": result.warnings,
    }


@router.post(
    "/jobs/batch",
    operation_id="createJobsBatch",
    status_code=201,
    response_model=answers.JobBatch,
    responses={
        200: {"model": answers.JobBatch, "description": "a repeated Idempotency-Key"},
        207: {"model": answers.JobBatch, "description": "some items created, some failed"},
        422: {
            "model": answers.JobBatchRefused,
            "description": "every item failed: nothing created (an Idempotency-Key sent before "
            "with another body: each item failed with IdempotencyKeyReused, which `error`, "
            "`message` and `field` also give)",
        },
    },
    summary="Create several jobs, each on its own",
)
def create_jobs(
    body: bodies.JobBatchCreate,
    principal: Caller,
    cluster: Kube,
    request: Request,
    response: Response,
    idempotency_key: idempotency.KeyHeader = None,
    allow_pending: AllowPending = False,
) -> dict[str, Any] | JSONResponse:
    """201 when every item was created, 207 when some were and some failed, 422 when every
    item failed; `failed` gives each failure in the error shape, with its index. With an
    `Idempotency-Key` an earlier request with the same body sent, the items it created answer
    their jobs (not created again) and only the items it failed are tried again: 200 when
    nothing was left to create; the same key with another body is 422, nothing created."""
    require(principal, "jobs", "create")
    texts = body.yaml_contents
    idem = idempotency.of_request(idempotency_key, principal, "POST /jobs/batch", texts)
    home = _own_namespace(principal)
    try:
        before = idempotency.earlier(cluster, principal, idem, home) if idem else {}
    except ApiError as exc:
        if exc.code != idempotency.REUSED:
            raise
        return JSONResponse(_every_item_failed(exc, len(texts)), status_code=422)
    success: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for index, text in enumerate(texts):
        if index in before:
            item = job_item(before[index], None)
            success.append({"jobId": item["jobId"], "name": item["name"]})
            continue
        try:
            made = _create_batch_item(
                cluster, principal, text, index, (request, allow_pending), idem, home
            )
        except Exception as exc:  # each item answers for itself, in the one error shape
            failed.append({"index": index, **body_of(exc)})
            continue
        success.append({"jobId": made["jobId"], "name": made["name"]})
    if failed:
        response.status_code = 207 if success else 422
    elif idem is not None and len(before) == len(texts):
        response.status_code = 200
    return {"success": success, "failed": failed}


def _every_item_failed(exc: ApiError, count: int) -> dict[str, Any]:
    """A batch none of whose `count` items was tried, for `exc`: the batch's answer, each item
    failed with it, and `exc`'s own error shape beside (what the answer was before it was a
    batch's, which clients reading the error shape still read)."""
    error = {"error": exc.code, "message": str(exc), "field": exc.field}
    return {**error, "success": [], "failed": [{"index": i, **error} for i in range(count)]}


def _create_batch_item(
    cluster: ClusterAPI,
    principal: Principal,
    text: str,
    index: int,
    asked: tuple[Request, bool],
    idem: idempotency.Idempotency | None,
    home: str | None,
) -> dict[str, Any]:
    source = f"yamlContents[{index}]"
    request, allow_pending = asked
    if idem is None:
        return _create_one(cluster, principal, text, source, request, allow_pending)

    def repeat() -> dict[str, Any] | None:
        found = idempotency.earlier(cluster, principal, idem, home).get(index)
        return _created_before(found) if found is not None else None

    made, _ = idempotency.once(
        lambda: _create_one(
            cluster, principal, text, source, request, allow_pending, idem.marks(index)
        ),
        repeat,
    )
    return made


STATUS_WORDS: list[JsonValue] = list(JOB_STATUS)
KIND_WORDS: list[JsonValue] = list(job_kinds())


class JobsQuery(BaseModel):
    """GET /jobs's query parameters, checked in one validation (`params.query_of`): each is
    still its own parameter in the OpenAPI document, a bad value a 400 with `field:
    query.<name>`, an unknown parameter ignored."""

    kind: str | None = Field(
        None, description="only jobs of this kind", json_schema_extra={"enum": [*KIND_WORDS]}
    )
    pool: str | None = Field(None, max_length=63, pattern=LABEL_VALUE, description="a label value")
    status: str | None = Field(
        None, description="only jobs in this status", json_schema_extra={"enum": [*STATUS_WORDS]}
    )
    namespace: str | None = Field(
        None,
        max_length=63,
        pattern=DNS_LABEL,
        description="only this namespace (a user's own, unless an admin or RBAC allows)",
    )
    page: int = Field(1, ge=1, description="1-based page number")
    page_size: int = Field(20, alias="pageSize", ge=1, le=1000, description="items a page")


@router.get(
    "/jobs",
    operation_id="listJobs",
    description=(
        "One page of the jobs the caller may see (a user's own; every namespace's for an "
        "admin), newest first, filtered by kind, pool, status and namespace; `total` counts "
        "every match. The answer's `ETag` sent back as `If-None-Match` is 304 with no body "
        "while the page is unchanged."
    ),
    response_model=answers.JobList,
    responses=etags.RESPONSES,
    summary="List jobs (yours; every user's for an admin)",
    openapi_extra={"parameters": [*query_parameters(JobsQuery), etags.HEADER_PARAMETER]},
)
async def list_jobs(request: Request) -> Response:
    # the caller and the reads asked for directly, not as Depends: FastAPI solves each
    # dependency anew on every request, an eighth of what the job list costs. The caller
    # first, as FastAPI did: a client without a valid token gets 401 whatever its query
    principal = await deps.caller(request)
    source = await deps.reads(request)
    query = query_of(JobsQuery, request)
    namespace, pool, kind, status = query.namespace, query.pool, query.kind, query.status
    page, page_size = query.page, query.page_size
    require(principal, "jobs", "get", namespace)
    one_of("query.status", status, JOB_STATUS)
    one_of("query.kind", kind, tuple(job_kinds()))

    def one_page(source: ClusterAPI) -> bytes:
        found = visible_jobs(source, principal, namespace, pool, kind)
        wanted = [obj for obj in found if status is None or status_word(obj) == status]
        listed = page_of(wanted, page, page_size)  # only the page's rows are built
        started = inventory.start_times(source, listed["items"])
        items = [job_item(obj, started.get(inventory.job_of(obj))) for obj in listed["items"]]
        return answers.checked_json(answers.JobList, {"total": listed["total"], "items": items})

    def remembered_page(source: ClusterAPI) -> bytes:
        where = namespace or _own_namespace(principal)
        key = ("jobs", where, pool, kind, status, page, page_size)
        return remembered(source, key, lambda: one_page(source))

    # the page's JSON, checked and written once while the jobs are unchanged
    return etags.answer(request, await from_lists(source, remembered_page))


def visible_jobs(
    cluster: ClusterAPI,
    principal: Principal,
    namespace: str | None,
    pool: str | None,
    kind: str | None,
) -> list[dict[str, Any]]:
    """The jobs the caller asked for and may see: in `namespace`, else in their own (a
    token-file user), else everywhere (an admin; a kubernetes-mode caller whom RBAC lets list
    every namespace, else their own)."""
    if namespace is not None or not principal.impersonated:
        # (an impersonated caller's reads are never the cache's: deps.reads)
        return inventory.list_jobs(cluster, namespace or _own_namespace(principal), pool, kind)
    return kubeauth.everywhere_or_home(
        cluster, principal, lambda where: inventory.list_jobs(cluster, where, pool, kind)
    )


@router.get(
    "/jobs/{jobId}",
    operation_id="getJob",
    description=(
        "A job's status, resources, pods and why it waits, as `gpuctl describe job` shows them;"
        " with a Prometheus (`serve --prometheus-url`) its GPU figures now. Another user's job "
        "is 404. The answer's `ETag` sent back as `If-None-Match` is 304 with no body while "
        "the job is unchanged."
    ),
    response_model=answers.JobDetail,
    responses=etags.RESPONSES,
    summary="One job: status, resources, pods, why it waits",
    openapi_extra={"parameters": [etags.HEADER_PARAMETER]},
)
def get_job(jobId: JobIdPath, principal: Caller, cluster: Kube, request: Request) -> Response:
    return etags.answer(
        request,
        answers.checked_json(answers.JobDetail, _job_detail(jobId, principal, cluster, request)),
    )


def _job_detail(
    jobId: str, principal: Principal, cluster: FullClusterAPI, request: Request
) -> dict[str, Any]:
    namespace, name = locate(principal, cluster, jobId)
    require(principal, "jobs", "get", namespace)
    detail = job_detail(inventory.gather(cluster, name, namespace, principal.sees))
    prometheus = request.app.state.prometheus
    if prometheus is not None:  # the same figures as `gpuctl describe job` and `top jobs`
        from gpuctl.monitoring.custom import throughput_now
        from gpuctl.monitoring.gpu import job_metrics_now
        from gpuctl.monitoring.prometheus import PrometheusError

        pods = detail["k8sResources"]["pods"]
        try:
            detail["metrics"].update(job_metrics_now(prometheus, namespace, pods))
            # the job's own pushed throughput (POST /metrics/custom), as its last value
            detail["metrics"]["throughput"] = throughput_now(prometheus, namespace, name)
        except PrometheusError as exc:  # the job without its metrics, and why
            detail["metricsError"] = str(exc)
    return detail


@router.get(
    "/jobs/{jobId}/manifests",
    operation_id="getJobManifests",
    description=(
        "What the job's spec renders to: the Kubernetes objects (Job, Deployment, "
        "StatefulSet, Service, ...) that the spec as submitted (`yamlContent`) becomes, "
        "rendered again now by the same pure render as `gpuctl create`, in the job's "
        "namespace. A job whose spec was not kept (too large, or not made by gpuctl) has no "
        "manifests and `message` says why. Another user's job is 404."
    ),
    response_model=answers.JobManifests,
    summary="What a job's spec renders to (its Kubernetes manifests)",
)
def get_job_manifests(jobId: JobIdPath, principal: Caller, cluster: Kube) -> dict[str, Any]:
    from gpuctl.errors import SpecError
    from gpuctl.render.engine import render_specs
    from gpuctl.spec.check import check_documents
    from gpuctl.spec.document import load_text
    from gpuctl.spec.kinds import Options

    namespace, name = key = locate(principal, cluster, jobId)
    require(principal, "jobs", "get", namespace)
    workload = inventory.find_job(cluster, name, namespace)
    annotations = workload["metadata"].get("annotations") or {}
    text = annotations.get(c.SPEC_ANNOTATION)
    if text is None:
        note = (
            annotations.get(c.SPEC_OMITTED_ANNOTATION) or "this job was made without a gpuctl spec"
        )
        return {"jobId": key.id, "manifests": [], "message": f"nothing to render: {note}"}
    try:
        specs = check_documents(load_text("yamlContent", text))
        rendered = render_specs(specs, Options(namespace=namespace, default_namespace=namespace))
    except SpecError as exc:  # kept when it was valid; today's rules may refuse it
        message = f"the spec no longer renders: {exc}"
        return {"jobId": key.id, "manifests": [], "message": message}
    manifests = [
        {
            "kind": m.kind,
            "name": m.name,
            "namespace": m.obj["metadata"].get("namespace"),
            "yaml": m.text,
        }
        for m in rendered
    ]
    return {"jobId": key.id, "manifests": manifests, "message": ""}


@router.delete(
    "/jobs/{jobId}",
    operation_id="deleteJob",
    description=(
        "Deletes the job's workload, its pods and what was rendered with it, and the values it"
        " pushed (POST /metrics/custom); `force=true` kills the pods without a grace period. "
        "Answers once the deletion is under way (`terminating`)."
    ),
    response_model=answers.JobDeleted,
    summary="Delete a job and its pods",
)
def delete_job(
    jobId: JobIdPath,
    principal: Caller,
    cluster: Kube,
    request: Request,
    force: Annotated[bool, Query(description="no grace period: pods are killed at once")] = False,
) -> dict[str, Any]:
    from gpuctl.verbs.delete import Delete

    namespace, name = key = locate(principal, cluster, jobId)
    require(principal, "jobs", "delete", namespace)
    verb = Delete(cluster, force=force, pushgateway=request.app.state.pushgateway)
    result = verb.job(name, namespace)
    if not result.ok:
        raise verb_failed(result, 502, "DeleteFailed")
    for item in result.objects:  # a list right after shows the job terminating, or gone
        caught_up(request, item.kind, [item.name], namespace)
    return {
        "jobId": key.id,
        "status": "terminating",
        "message": "; ".join(result.lines() + result.warnings),
    }
