from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.jobs_utilisation import JobsUtilisation
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    points: int | Unset = 20,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["points"] = points


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/metrics/jobs",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobsUtilisation:
    if response.status_code == 200:
        response_200 = JobsUtilisation.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobsUtilisation]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    points: int | Unset = 20,

) -> Response[ErrorBody | JobsUtilisation]:
    """ Every visible job's recent GPU utilisation (sparklines), in one request

     The GPU utilisation of every job the caller may see (a user's own; every namespace's for an admin),
    as GET /jobs lists them: per job the last `points` values (%) of the mean over its pods' GPUs,
    evenly spaced over the last 30 minutes, oldest first, from one Prometheus query however many jobs
    there are. Jobs with no GPU figure are left out. Without a Prometheus `items` is empty and `source`
    null.

    Args:
        points (int | Unset): values per job Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobsUtilisation]
     """


    kwargs = _get_kwargs(
        points=points,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    points: int | Unset = 20,

) -> ErrorBody | JobsUtilisation | None:
    """ Every visible job's recent GPU utilisation (sparklines), in one request

     The GPU utilisation of every job the caller may see (a user's own; every namespace's for an admin),
    as GET /jobs lists them: per job the last `points` values (%) of the mean over its pods' GPUs,
    evenly spaced over the last 30 minutes, oldest first, from one Prometheus query however many jobs
    there are. Jobs with no GPU figure are left out. Without a Prometheus `items` is empty and `source`
    null.

    Args:
        points (int | Unset): values per job Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobsUtilisation
     """


    return sync_detailed(
        client=client,
points=points,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    points: int | Unset = 20,

) -> Response[ErrorBody | JobsUtilisation]:
    """ Every visible job's recent GPU utilisation (sparklines), in one request

     The GPU utilisation of every job the caller may see (a user's own; every namespace's for an admin),
    as GET /jobs lists them: per job the last `points` values (%) of the mean over its pods' GPUs,
    evenly spaced over the last 30 minutes, oldest first, from one Prometheus query however many jobs
    there are. Jobs with no GPU figure are left out. Without a Prometheus `items` is empty and `source`
    null.

    Args:
        points (int | Unset): values per job Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobsUtilisation]
     """


    kwargs = _get_kwargs(
        points=points,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    points: int | Unset = 20,

) -> ErrorBody | JobsUtilisation | None:
    """ Every visible job's recent GPU utilisation (sparklines), in one request

     The GPU utilisation of every job the caller may see (a user's own; every namespace's for an admin),
    as GET /jobs lists them: per job the last `points` values (%) of the mean over its pods' GPUs,
    evenly spaced over the last 30 minutes, oldest first, from one Prometheus query however many jobs
    there are. Jobs with no GPU figure are left out. Without a Prometheus `items` is empty and `source`
    null.

    Args:
        points (int | Unset): values per job Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobsUtilisation
     """


    return (await asyncio_detailed(
        client=client,
points=points,

    )).parsed
