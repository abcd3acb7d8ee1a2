from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.custom_metrics_push import CustomMetricsPush
from ...models.custom_metrics_pushed import CustomMetricsPushed
from ...models.error_body import ErrorBody
from typing import cast



def _get_kwargs(
    *,
    body: CustomMetricsPush,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/metrics/custom",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> CustomMetricsPushed | ErrorBody:
    if response.status_code == 200:
        response_200 = CustomMetricsPushed.from_dict(response.json())



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

    if response.status_code == 502:
        response_502 = ErrorBody.from_dict(response.json())



        return response_502

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    response_default = ErrorBody.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[CustomMetricsPushed | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CustomMetricsPush,

) -> Response[CustomMetricsPushed | ErrorBody]:
    """ Push a job's own metric values (loss, throughput, progress)

     A job reports its own values: `progress` (percent, shown by `gpuctl get jobs`), `loss`,
    `tokensPerSecond` or `samplesPerSecond` (the job's `throughput`), or any other metric name. Each
    becomes the gauge `gpuctl_job_<name>` in the job's Pushgateway group (job, namespace); a push
    replaces the values of the names it carries and keeps the others. At most 32 names and 16 KiB a
    push; names as Prometheus metric names without `:`, values finite numbers. `GET
    /jobs/{jobId}/metrics` reads them back.

    Args:
        body (CustomMetricsPush): A job's own values, by name (at most 32 in one push). Example:
            {'jobId': 'alice.qwen2-7b-sft', 'metrics': {'loss': 0.12, 'progress': 42.5,
            'tokensPerSecond': 5100}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CustomMetricsPushed | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: CustomMetricsPush,

) -> CustomMetricsPushed | ErrorBody | None:
    """ Push a job's own metric values (loss, throughput, progress)

     A job reports its own values: `progress` (percent, shown by `gpuctl get jobs`), `loss`,
    `tokensPerSecond` or `samplesPerSecond` (the job's `throughput`), or any other metric name. Each
    becomes the gauge `gpuctl_job_<name>` in the job's Pushgateway group (job, namespace); a push
    replaces the values of the names it carries and keeps the others. At most 32 names and 16 KiB a
    push; names as Prometheus metric names without `:`, values finite numbers. `GET
    /jobs/{jobId}/metrics` reads them back.

    Args:
        body (CustomMetricsPush): A job's own values, by name (at most 32 in one push). Example:
            {'jobId': 'alice.qwen2-7b-sft', 'metrics': {'loss': 0.12, 'progress': 42.5,
            'tokensPerSecond': 5100}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CustomMetricsPushed | ErrorBody
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CustomMetricsPush,

) -> Response[CustomMetricsPushed | ErrorBody]:
    """ Push a job's own metric values (loss, throughput, progress)

     A job reports its own values: `progress` (percent, shown by `gpuctl get jobs`), `loss`,
    `tokensPerSecond` or `samplesPerSecond` (the job's `throughput`), or any other metric name. Each
    becomes the gauge `gpuctl_job_<name>` in the job's Pushgateway group (job, namespace); a push
    replaces the values of the names it carries and keeps the others. At most 32 names and 16 KiB a
    push; names as Prometheus metric names without `:`, values finite numbers. `GET
    /jobs/{jobId}/metrics` reads them back.

    Args:
        body (CustomMetricsPush): A job's own values, by name (at most 32 in one push). Example:
            {'jobId': 'alice.qwen2-7b-sft', 'metrics': {'loss': 0.12, 'progress': 42.5,
            'tokensPerSecond': 5100}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CustomMetricsPushed | ErrorBody]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CustomMetricsPush,

) -> CustomMetricsPushed | ErrorBody | None:
    """ Push a job's own metric values (loss, throughput, progress)

     A job reports its own values: `progress` (percent, shown by `gpuctl get jobs`), `loss`,
    `tokensPerSecond` or `samplesPerSecond` (the job's `throughput`), or any other metric name. Each
    becomes the gauge `gpuctl_job_<name>` in the job's Pushgateway group (job, namespace); a push
    replaces the values of the names it carries and keeps the others. At most 32 names and 16 KiB a
    push; names as Prometheus metric names without `:`, values finite numbers. `GET
    /jobs/{jobId}/metrics` reads them back.

    Args:
        body (CustomMetricsPush): A job's own values, by name (at most 32 in one push). Example:
            {'jobId': 'alice.qwen2-7b-sft', 'metrics': {'loss': 0.12, 'progress': 42.5,
            'tokensPerSecond': 5100}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CustomMetricsPushed | ErrorBody
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
