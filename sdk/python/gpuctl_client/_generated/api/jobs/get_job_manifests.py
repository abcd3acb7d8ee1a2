from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_manifests import JobManifests
from typing import cast



def _get_kwargs(
    job_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/jobs/{job_id}/manifests".format(job_id=quote(str(job_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobManifests:
    if response.status_code == 200:
        response_200 = JobManifests.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobManifests]:
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

) -> Response[ErrorBody | JobManifests]:
    """ What a job's spec renders to (its Kubernetes manifests)

     What the job's spec renders to: the Kubernetes objects (Job, Deployment, StatefulSet, Service, ...)
    that the spec as submitted (`yamlContent`) becomes, rendered again now by the same pure render as
    `gpuctl create`, in the job's namespace. A job whose spec was not kept (too large, or not made by
    gpuctl) has no manifests and `message` says why. Another user's job is 404.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobManifests]
     """


    kwargs = _get_kwargs(
        job_id=job_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | JobManifests | None:
    """ What a job's spec renders to (its Kubernetes manifests)

     What the job's spec renders to: the Kubernetes objects (Job, Deployment, StatefulSet, Service, ...)
    that the spec as submitted (`yamlContent`) becomes, rendered again now by the same pure render as
    `gpuctl create`, in the job's namespace. A job whose spec was not kept (too large, or not made by
    gpuctl) has no manifests and `message` says why. Another user's job is 404.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobManifests
     """


    return sync_detailed(
        job_id=job_id,
client=client,

    ).parsed

async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | JobManifests]:
    """ What a job's spec renders to (its Kubernetes manifests)

     What the job's spec renders to: the Kubernetes objects (Job, Deployment, StatefulSet, Service, ...)
    that the spec as submitted (`yamlContent`) becomes, rendered again now by the same pure render as
    `gpuctl create`, in the job's namespace. A job whose spec was not kept (too large, or not made by
    gpuctl) has no manifests and `message` says why. Another user's job is 404.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobManifests]
     """


    kwargs = _get_kwargs(
        job_id=job_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | JobManifests | None:
    """ What a job's spec renders to (its Kubernetes manifests)

     What the job's spec renders to: the Kubernetes objects (Job, Deployment, StatefulSet, Service, ...)
    that the spec as submitted (`yamlContent`) becomes, rendered again now by the same pure render as
    `gpuctl create`, in the job's namespace. A job whose spec was not kept (too large, or not made by
    gpuctl) has no manifests and `message` says why. Another user's job is 404.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobManifests
     """


    return (await asyncio_detailed(
        job_id=job_id,
client=client,

    )).parsed
