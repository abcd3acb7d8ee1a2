from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.custom_metrics_push_metrics import CustomMetricsPushMetrics





T = TypeVar("T", bound="CustomMetricsPush")



@_attrs_define
class CustomMetricsPush:
    """ A job's own values, by name (at most 32 in one push).

        Example:
            {'jobId': 'alice.qwen2-7b-sft', 'metrics': {'loss': 0.12, 'progress': 42.5, 'tokensPerSecond': 5100}}

        Attributes:
            job_id (str): the job: its id `<namespace>.<name>`, or `<namespace>/<name>`, or `<name>` alone for a job in the
                caller's own namespace
            metrics (CustomMetricsPushMetrics): name -> a finite number; `progress` is percent (0-100), `tokensPerSecond` or
                `samplesPerSecond` the job's throughput
     """

    job_id: str
    metrics: CustomMetricsPushMetrics





    def to_dict(self) -> dict[str, Any]:
        from ..models.custom_metrics_push_metrics import CustomMetricsPushMetrics # noqa: PLC0415
        job_id = self.job_id

        metrics = self.metrics.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "metrics": metrics,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.custom_metrics_push_metrics import CustomMetricsPushMetrics # noqa: PLC0415
        d = dict(src_dict)
        job_id = d.pop("jobId")

        metrics = CustomMetricsPushMetrics.from_dict(d.pop("metrics"))




        custom_metrics_push = cls(
            job_id=job_id,
            metrics=metrics,
        )

        return custom_metrics_push

