from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_kind import JobKind
from ...models.job_list import JobList
from ...models.job_status import JobStatus
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    kind: JobKind | Unset = UNSET,
    pool: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    namespace: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    if_none_match: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match



    

    params: dict[str, Any] = {}

    json_kind: str | Unset = UNSET
    if not isinstance(kind, Unset):
        json_kind = kind.value

    params["kind"] = json_kind

    params["pool"] = pool

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["namespace"] = namespace

    params["page"] = page

    params["pageSize"] = page_size


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/jobs",
        "params": params,
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorBody | JobList:
    if response.status_code == 200:
        response_200 = JobList.from_dict(response.json())



        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    response_default = ErrorBody.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorBody | JobList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    kind: JobKind | Unset = UNSET,
    pool: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    namespace: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    if_none_match: str | Unset = UNSET,

) -> Response[Any | ErrorBody | JobList]:
    """ List jobs (yours; every user's for an admin)

     One page of the jobs the caller may see (a user's own; every namespace's for an admin), newest
    first, filtered by kind, pool, status and namespace; `total` counts every match. The answer's `ETag`
    sent back as `If-None-Match` is 304 with no body while the page is unchanged.

    Args:
        kind (JobKind | Unset):
        pool (str | Unset): a label value
        status (JobStatus | Unset):
        namespace (str | Unset): only this namespace (a user's own, unless an admin or RBAC
            allows)
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        kind=kind,
pool=pool,
status=status,
namespace=namespace,
page=page,
page_size=page_size,
if_none_match=if_none_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    kind: JobKind | Unset = UNSET,
    pool: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    namespace: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    if_none_match: str | Unset = UNSET,

) -> Any | ErrorBody | JobList | None:
    """ List jobs (yours; every user's for an admin)

     One page of the jobs the caller may see (a user's own; every namespace's for an admin), newest
    first, filtered by kind, pool, status and namespace; `total` counts every match. The answer's `ETag`
    sent back as `If-None-Match` is 304 with no body while the page is unchanged.

    Args:
        kind (JobKind | Unset):
        pool (str | Unset): a label value
        status (JobStatus | Unset):
        namespace (str | Unset): only this namespace (a user's own, unless an admin or RBAC
            allows)
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | JobList
     """


    return sync_detailed(
        client=client,
kind=kind,
pool=pool,
status=status,
namespace=namespace,
page=page,
page_size=page_size,
if_none_match=if_none_match,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    kind: JobKind | Unset = UNSET,
    pool: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    namespace: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    if_none_match: str | Unset = UNSET,

) -> Response[Any | ErrorBody | JobList]:
    """ List jobs (yours; every user's for an admin)

     One page of the jobs the caller may see (a user's own; every namespace's for an admin), newest
    first, filtered by kind, pool, status and namespace; `total` counts every match. The answer's `ETag`
    sent back as `If-None-Match` is 304 with no body while the page is unchanged.

    Args:
        kind (JobKind | Unset):
        pool (str | Unset): a label value
        status (JobStatus | Unset):
        namespace (str | Unset): only this namespace (a user's own, unless an admin or RBAC
            allows)
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | JobList]
     """


    kwargs = _get_kwargs(
        kind=kind,
pool=pool,
status=status,
namespace=namespace,
page=page,
page_size=page_size,
if_none_match=if_none_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    kind: JobKind | Unset = UNSET,
    pool: str | Unset = UNSET,
    status: JobStatus | Unset = UNSET,
    namespace: str | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    if_none_match: str | Unset = UNSET,

) -> Any | ErrorBody | JobList | None:
    """ List jobs (yours; every user's for an admin)

     One page of the jobs the caller may see (a user's own; every namespace's for an admin), newest
    first, filtered by kind, pool, status and namespace; `total` counts every match. The answer's `ETag`
    sent back as `If-None-Match` is 304 with no body while the page is unchanged.

    Args:
        kind (JobKind | Unset):
        pool (str | Unset): a label value
        status (JobStatus | Unset):
        namespace (str | Unset): only this namespace (a user's own, unless an admin or RBAC
            allows)
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | JobList
     """


    return (await asyncio_detailed(
        client=client,
kind=kind,
pool=pool,
status=status,
namespace=namespace,
page=page,
page_size=page_size,
if_none_match=if_none_match,

    )).parsed
