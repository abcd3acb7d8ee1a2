from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_logs import JobLogs
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    job_id: str,
    *,
    tail: int | Unset = 100,
    pod: str | Unset = UNSET,
    follow: bool | Unset = False,
    limit_bytes: int | Unset = 1048576,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["tail"] = tail

    params["pod"] = pod

    params["follow"] = follow

    params["limitBytes"] = limit_bytes


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/jobs/{job_id}/logs".format(job_id=quote(str(job_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobLogs:
    if response.status_code == 200:
        response_200 = JobLogs.from_dict(response.json())



        return response_200

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobLogs]:
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
    tail: int | Unset = 100,
    pod: str | Unset = UNSET,
    follow: bool | Unset = False,
    limit_bytes: int | Unset = 1048576,

) -> Response[ErrorBody | JobLogs]:
    """ A job's logs; follow=true streams them

     The last `tail` lines of each of the job's pods as JSON, at most `limitBytes` bytes of them (1 MiB
    unless asked; `truncated` says when lines were left out) and when the last one was written
    (`lastTimestamp`); with `follow=true`, a chunked `text/plain` stream of lines that ends when the
    pods stop (the same path also takes a WebSocket upgrade: one text message a line). One user reads
    and follows at most 8 at once unless `serve --max-log-streams-per-user` says otherwise (429 with
    Retry-After beyond).

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        tail (int | Unset): last N lines of each pod Default: 100.
        pod (str | Unset):
        follow (bool | Unset):  Default: False.
        limit_bytes (int | Unset): at most this many bytes of lines in all, whole lines (not with
            follow) Default: 1048576.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobLogs]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
tail=tail,
pod=pod,
follow=follow,
limit_bytes=limit_bytes,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = 100,
    pod: str | Unset = UNSET,
    follow: bool | Unset = False,
    limit_bytes: int | Unset = 1048576,

) -> ErrorBody | JobLogs | None:
    """ A job's logs; follow=true streams them

     The last `tail` lines of each of the job's pods as JSON, at most `limitBytes` bytes of them (1 MiB
    unless asked; `truncated` says when lines were left out) and when the last one was written
    (`lastTimestamp`); with `follow=true`, a chunked `text/plain` stream of lines that ends when the
    pods stop (the same path also takes a WebSocket upgrade: one text message a line). One user reads
    and follows at most 8 at once unless `serve --max-log-streams-per-user` says otherwise (429 with
    Retry-After beyond).

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        tail (int | Unset): last N lines of each pod Default: 100.
        pod (str | Unset):
        follow (bool | Unset):  Default: False.
        limit_bytes (int | Unset): at most this many bytes of lines in all, whole lines (not with
            follow) Default: 1048576.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobLogs
     """


    return sync_detailed(
        job_id=job_id,
client=client,
tail=tail,
pod=pod,
follow=follow,
limit_bytes=limit_bytes,

    ).parsed

async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = 100,
    pod: str | Unset = UNSET,
    follow: bool | Unset = False,
    limit_bytes: int | Unset = 1048576,

) -> Response[ErrorBody | JobLogs]:
    """ A job's logs; follow=true streams them

     The last `tail` lines of each of the job's pods as JSON, at most `limitBytes` bytes of them (1 MiB
    unless asked; `truncated` says when lines were left out) and when the last one was written
    (`lastTimestamp`); with `follow=true`, a chunked `text/plain` stream of lines that ends when the
    pods stop (the same path also takes a WebSocket upgrade: one text message a line). One user reads
    and follows at most 8 at once unless `serve --max-log-streams-per-user` says otherwise (429 with
    Retry-After beyond).

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        tail (int | Unset): last N lines of each pod Default: 100.
        pod (str | Unset):
        follow (bool | Unset):  Default: False.
        limit_bytes (int | Unset): at most this many bytes of lines in all, whole lines (not with
            follow) Default: 1048576.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobLogs]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
tail=tail,
pod=pod,
follow=follow,
limit_bytes=limit_bytes,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    tail: int | Unset = 100,
    pod: str | Unset = UNSET,
    follow: bool | Unset = False,
    limit_bytes: int | Unset = 1048576,

) -> ErrorBody | JobLogs | None:
    """ A job's logs; follow=true streams them

     The last `tail` lines of each of the job's pods as JSON, at most `limitBytes` bytes of them (1 MiB
    unless asked; `truncated` says when lines were left out) and when the last one was written
    (`lastTimestamp`); with `follow=true`, a chunked `text/plain` stream of lines that ends when the
    pods stop (the same path also takes a WebSocket upgrade: one text message a line). One user reads
    and follows at most 8 at once unless `serve --max-log-streams-per-user` says otherwise (429 with
    Retry-After beyond).

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        tail (int | Unset): last N lines of each pod Default: 100.
        pod (str | Unset):
        follow (bool | Unset):  Default: False.
        limit_bytes (int | Unset): at most this many bytes of lines in all, whole lines (not with
            follow) Default: 1048576.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobLogs
     """


    return (await asyncio_detailed(
        job_id=job_id,
client=client,
tail=tail,
pod=pod,
follow=follow,
limit_bytes=limit_bytes,

    )).parsed
