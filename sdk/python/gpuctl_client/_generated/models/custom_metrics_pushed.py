from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="CustomMetricsPushed")



@_attrs_define
class CustomMetricsPushed:
    """ 
        Example:
            {'jobId': 'alice.qwen2-7b-sft', 'pushgateway': 'http://pushgateway.monitoring:9091', 'stored': ['loss',
                'progress', 'tokensPerSecond']}

        Attributes:
            job_id (str):
            stored (list[str]): the names whose values the Pushgateway now holds
            pushgateway (str):
     """

    job_id: str
    stored: list[str]
    pushgateway: str





    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        stored = self.stored



        pushgateway = self.pushgateway


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "stored": stored,
            "pushgateway": pushgateway,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("jobId")

        stored = cast(list[str], d.pop("stored"))


        pushgateway = d.pop("pushgateway")

        custom_metrics_pushed = cls(
            job_id=job_id,
            stored=stored,
            pushgateway=pushgateway,
        )

        return custom_metrics_pushed

