from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_detail import JobDetail
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    job_id: str,
    *,
    if_none_match: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match



    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/jobs/{job_id}".format(job_id=quote(str(job_id), safe=""),),
    }


    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorBody | JobDetail:
    if response.status_code == 200:
        response_200 = JobDetail.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorBody | JobDetail]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,

) -> Response[Any | ErrorBody | JobDetail]:
    """ One job: status, resources, pods, why it waits

     A job's status, resources, pods and why it waits, as `gpuctl describe job` shows them; with a
    Prometheus (`serve --prometheus-url`) its GPU figures now. Another user's job is 404. The answer's
    `ETag` sent back as `If-None-Match` is 304 with no body while the job is unchanged.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | JobDetail]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
if_none_match=if_none_match,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,

) -> Any | ErrorBody | JobDetail | None:
    """ One job: status, resources, pods, why it waits

     A job's status, resources, pods and why it waits, as `gpuctl describe job` shows them; with a
    Prometheus (`serve --prometheus-url`) its GPU figures now. Another user's job is 404. The answer's
    `ETag` sent back as `If-None-Match` is 304 with no body while the job is unchanged.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | JobDetail
     """


    return sync_detailed(
        job_id=job_id,
client=client,
if_none_match=if_none_match,

    ).parsed

async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,

) -> Response[Any | ErrorBody | JobDetail]:
    """ One job: status, resources, pods, why it waits

     A job's status, resources, pods and why it waits, as `gpuctl describe job` shows them; with a
    Prometheus (`serve --prometheus-url`) its GPU figures now. Another user's job is 404. The answer's
    `ETag` sent back as `If-None-Match` is 304 with no body while the job is unchanged.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody | JobDetail]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
if_none_match=if_none_match,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    if_none_match: str | Unset = UNSET,

) -> Any | ErrorBody | JobDetail | None:
    """ One job: status, resources, pods, why it waits

     A job's status, resources, pods and why it waits, as `gpuctl describe job` shows them; with a
    Prometheus (`serve --prometheus-url`) its GPU figures now. Another user's job is 404. The answer's
    `ETag` sent back as `If-None-Match` is 304 with no body while the job is unchanged.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody | JobDetail
     """


    return (await asyncio_detailed(
        job_id=job_id,
client=client,
if_none_match=if_none_match,

    )).parsed
