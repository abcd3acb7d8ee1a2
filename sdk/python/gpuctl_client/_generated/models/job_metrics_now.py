from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="JobMetricsNow")



@_attrs_define
class JobMetricsNow:
    """ 
        Attributes:
            gpu_utilization (float | None):
            memory_usage (None | str):
            network_latency (None | str):
            throughput (None | str):
     """

    gpu_utilization: float | None
    memory_usage: None | str
    network_latency: None | str
    throughput: None | str





    def to_dict(self) -> dict[str, Any]:
        gpu_utilization: float | None
        gpu_utilization = self.gpu_utilization

        memory_usage: None | str
        memory_usage = self.memory_usage

        network_latency: None | str
        network_latency = self.network_latency

        throughput: None | str
        throughput = self.throughput


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "gpuUtilization": gpu_utilization,
            "memoryUsage": memory_usage,
            "networkLatency": network_latency,
            "throughput": throughput,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_gpu_utilization(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        gpu_utilization = _parse_gpu_utilization(d.pop("gpuUtilization"))


        def _parse_memory_usage(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        memory_usage = _parse_memory_usage(d.pop("memoryUsage"))


        def _parse_network_latency(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        network_latency = _parse_network_latency(d.pop("networkLatency"))


        def _parse_throughput(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        throughput = _parse_throughput(d.pop("throughput"))


        job_metrics_now = cls(
            gpu_utilization=gpu_utilization,
            memory_usage=memory_usage,
            network_latency=network_latency,
            throughput=throughput,
        )

        return job_metrics_now

