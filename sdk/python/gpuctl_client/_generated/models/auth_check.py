from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.auth_check_action import AuthCheckAction
from ..models.auth_check_resource import AuthCheckResource
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AuthCheck")



@_attrs_define
class AuthCheck:
    """ 
        Example:
            {'action': 'create', 'resource': 'pools'}

        Attributes:
            resource (AuthCheckResource): jobs, pools, nodes, labels or quotas
            action (AuthCheckAction): get, create or delete
            pool (None | str | Unset):
            user (None | str | Unset): the owner, for jobs and quotas
     """

    resource: AuthCheckResource
    action: AuthCheckAction
    pool: None | str | Unset = UNSET
    user: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        resource = self.resource.value

        action = self.action.value

        pool: None | str | Unset
        if isinstance(self.pool, Unset):
            pool = UNSET
        else:
            pool = self.pool

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "resource": resource,
            "action": action,
        })
        if pool is not UNSET:
            field_dict["pool"] = pool
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        resource = AuthCheckResource(d.pop("resource"))




        action = AuthCheckAction(d.pop("action"))




        def _parse_pool(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        pool = _parse_pool(d.pop("pool", UNSET))


        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))


        auth_check = cls(
            resource=resource,
            action=action,
            pool=pool,
            user=user,
        )

        return auth_check

