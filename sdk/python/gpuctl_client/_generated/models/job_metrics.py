from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.job_metrics_custom import JobMetricsCustom
  from ..models.point import Point





T = TypeVar("T", bound="JobMetrics")



@_attrs_define
class JobMetrics:
    """ 
        Attributes:
            source (None | str):
            message (str):
            gpu_utilization (list[Point] | None | Unset):
            memory_usage (list[Point] | None | Unset):
            throughput (list[Point] | None | Unset): per second, from the job's own tokensPerSecond or samplesPerSecond
            custom (JobMetricsCustom | None | Unset): the job's own series (POST /metrics/custom), by name: loss, progress,
                ...
     """

    source: None | str
    message: str
    gpu_utilization: list[Point] | None | Unset = UNSET
    memory_usage: list[Point] | None | Unset = UNSET
    throughput: list[Point] | None | Unset = UNSET
    custom: JobMetricsCustom | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.job_metrics_custom import JobMetricsCustom # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        source: None | str
        source = self.source

        message = self.message

        gpu_utilization: list[dict[str, Any]] | None | Unset
        if isinstance(self.gpu_utilization, Unset):
            gpu_utilization = UNSET
        elif isinstance(self.gpu_utilization, list):
            gpu_utilization = []
            for gpu_utilization_type_0_item_data in self.gpu_utilization:
                gpu_utilization_type_0_item = gpu_utilization_type_0_item_data.to_dict()
                gpu_utilization.append(gpu_utilization_type_0_item)


        else:
            gpu_utilization = self.gpu_utilization

        memory_usage: list[dict[str, Any]] | None | Unset
        if isinstance(self.memory_usage, Unset):
            memory_usage = UNSET
        elif isinstance(self.memory_usage, list):
            memory_usage = []
            for memory_usage_type_0_item_data in self.memory_usage:
                memory_usage_type_0_item = memory_usage_type_0_item_data.to_dict()
                memory_usage.append(memory_usage_type_0_item)


        else:
            memory_usage = self.memory_usage

        throughput: list[dict[str, Any]] | None | Unset
        if isinstance(self.throughput, Unset):
            throughput = UNSET
        elif isinstance(self.throughput, list):
            throughput = []
            for throughput_type_0_item_data in self.throughput:
                throughput_type_0_item = throughput_type_0_item_data.to_dict()
                throughput.append(throughput_type_0_item)


        else:
            throughput = self.throughput

        custom: dict[str, Any] | None | Unset
        if isinstance(self.custom, Unset):
            custom = UNSET
        elif isinstance(self.custom, JobMetricsCustom):
            custom = self.custom.to_dict()
        else:
            custom = self.custom


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "source": source,
            "message": message,
        })
        if gpu_utilization is not UNSET:
            field_dict["gpuUtilization"] = gpu_utilization
        if memory_usage is not UNSET:
            field_dict["memoryUsage"] = memory_usage
        if throughput is not UNSET:
            field_dict["throughput"] = throughput
        if custom is not UNSET:
            field_dict["custom"] = custom

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_metrics_custom import JobMetricsCustom # noqa: PLC0415
        from ..models.point import Point # noqa: PLC0415
        d = dict(src_dict)
        def _parse_source(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        source = _parse_source(d.pop("source"))


        message = d.pop("message")

        def _parse_gpu_utilization(data: object) -> list[Point] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gpu_utilization_type_0 = []
                _gpu_utilization_type_0 = data
                for gpu_utilization_type_0_item_data in (_gpu_utilization_type_0):
                    gpu_utilization_type_0_item = Point.from_dict(gpu_utilization_type_0_item_data)



                    gpu_utilization_type_0.append(gpu_utilization_type_0_item)

                return gpu_utilization_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Point] | None | Unset, data)

        gpu_utilization = _parse_gpu_utilization(d.pop("gpuUtilization", UNSET))


        def _parse_memory_usage(data: object) -> list[Point] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                memory_usage_type_0 = []
                _memory_usage_type_0 = data
                for memory_usage_type_0_item_data in (_memory_usage_type_0):
                    memory_usage_type_0_item = Point.from_dict(memory_usage_type_0_item_data)



                    memory_usage_type_0.append(memory_usage_type_0_item)

                return memory_usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Point] | None | Unset, data)

        memory_usage = _parse_memory_usage(d.pop("memoryUsage", UNSET))


        def _parse_throughput(data: object) -> list[Point] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                throughput_type_0 = []
                _throughput_type_0 = data
                for throughput_type_0_item_data in (_throughput_type_0):
                    throughput_type_0_item = Point.from_dict(throughput_type_0_item_data)



                    throughput_type_0.append(throughput_type_0_item)

                return throughput_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Point] | None | Unset, data)

        throughput = _parse_throughput(d.pop("throughput", UNSET))


        def _parse_custom(data: object) -> JobMetricsCustom | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                custom_type_0 = JobMetricsCustom.from_dict(data)



                return custom_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobMetricsCustom | None | Unset, data)

        custom = _parse_custom(d.pop("custom", UNSET))


        job_metrics = cls(
            source=source,
            message=message,
            gpu_utilization=gpu_utilization,
            memory_usage=memory_usage,
            throughput=throughput,
            custom=custom,
        )

        return job_metrics

