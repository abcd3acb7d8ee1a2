from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.get_job_metrics_metric import GetJobMetricsMetric
from ...models.job_metrics import JobMetrics
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    job_id: str,
    *,
    metric: GetJobMetricsMetric | Unset = UNSET,
    start_time: str | Unset = UNSET,
    end_time: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_metric: str | Unset = UNSET
    if not isinstance(metric, Unset):
        json_metric = metric.value

    params["metric"] = json_metric

    params["startTime"] = start_time

    params["endTime"] = end_time


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/jobs/{job_id}/metrics".format(job_id=quote(str(job_id), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobMetrics:
    if response.status_code == 200:
        response_200 = JobMetrics.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobMetrics]:
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
    metric: GetJobMetricsMetric | Unset = UNSET,
    start_time: str | Unset = UNSET,
    end_time: str | Unset = UNSET,

) -> Response[ErrorBody | JobMetrics]:
    """ A job's GPU metric series from Prometheus (empty series without one)

     The job's GPU utilisation, GPU memory and throughput over time, from the Prometheus that `serve
    --prometheus-url` names, and `custom`: the series of the values the job pushed (POST
    /metrics/custom) by name; `throughput` is its tokensPerSecond (else samplesPerSecond). Without a
    Prometheus every series is empty and `source` is null.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        metric (GetJobMetricsMetric | Unset): only this series
        start_time (str | Unset):
        end_time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobMetrics]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
metric=metric,
start_time=start_time,
end_time=end_time,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    metric: GetJobMetricsMetric | Unset = UNSET,
    start_time: str | Unset = UNSET,
    end_time: str | Unset = UNSET,

) -> ErrorBody | JobMetrics | None:
    """ A job's GPU metric series from Prometheus (empty series without one)

     The job's GPU utilisation, GPU memory and throughput over time, from the Prometheus that `serve
    --prometheus-url` names, and `custom`: the series of the values the job pushed (POST
    /metrics/custom) by name; `throughput` is its tokensPerSecond (else samplesPerSecond). Without a
    Prometheus every series is empty and `source` is null.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        metric (GetJobMetricsMetric | Unset): only this series
        start_time (str | Unset):
        end_time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobMetrics
     """


    return sync_detailed(
        job_id=job_id,
client=client,
metric=metric,
start_time=start_time,
end_time=end_time,

    ).parsed

async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    metric: GetJobMetricsMetric | Unset = UNSET,
    start_time: str | Unset = UNSET,
    end_time: str | Unset = UNSET,

) -> Response[ErrorBody | JobMetrics]:
    """ A job's GPU metric series from Prometheus (empty series without one)

     The job's GPU utilisation, GPU memory and throughput over time, from the Prometheus that `serve
    --prometheus-url` names, and `custom`: the series of the values the job pushed (POST
    /metrics/custom) by name; `throughput` is its tokensPerSecond (else samplesPerSecond). Without a
    Prometheus every series is empty and `source` is null.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        metric (GetJobMetricsMetric | Unset): only this series
        start_time (str | Unset):
        end_time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobMetrics]
     """


    kwargs = _get_kwargs(
        job_id=job_id,
metric=metric,
start_time=start_time,
end_time=end_time,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    metric: GetJobMetricsMetric | Unset = UNSET,
    start_time: str | Unset = UNSET,
    end_time: str | Unset = UNSET,

) -> ErrorBody | JobMetrics | None:
    """ A job's GPU metric series from Prometheus (empty series without one)

     The job's GPU utilisation, GPU memory and throughput over time, from the Prometheus that `serve
    --prometheus-url` names, and `custom`: the series of the values the job pushed (POST
    /metrics/custom) by name; `throughput` is its tokensPerSecond (else samplesPerSecond). Without a
    Prometheus every series is empty and `source` is null.

    Args:
        job_id (str): the job: `<namespace>.<name>` (its id, as POST /jobs answers),
            `<namespace>/<name>` (in a path, its slash escaped: `%2F`) or `<name>` alone, for a job in
            the caller's own namespace
        metric (GetJobMetricsMetric | Unset): only this series
        start_time (str | Unset):
        end_time (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobMetrics
     """


    return (await asyncio_detailed(
        job_id=job_id,
client=client,
metric=metric,
start_time=start_time,
end_time=end_time,

    )).parsed
