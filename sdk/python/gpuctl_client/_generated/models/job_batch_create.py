from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="JobBatchCreate")



@_attrs_define
class JobBatchCreate:
    """ 
        Example:
            {'yamlContents': ['kind: training\\nversion: v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority:
                medium\\nenvironment:\\n  image: registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
                "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu: 32\\n  memory:
                128Gi\\n']}

        Attributes:
            yaml_contents (list[str]): job specs, each as in a YAML file (1 MiB each at most)
     """

    yaml_contents: list[str]





    def to_dict(self) -> dict[str, Any]:
        yaml_contents = self.yaml_contents




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "yamlContents": yaml_contents,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        yaml_contents = cast(list[str], d.pop("yamlContents"))


        job_batch_create = cls(
            yaml_contents=yaml_contents,
        )

        return job_batch_create

