"""The sandbox scheduler's toleration rule is kube-scheduler's TaintToleration filter (its
conformance on both clusters: tests/apply/test_pool_isolation.py)."""

from __future__ import annotations

from gpuctl.sandbox.taints import tolerates, untolerated

TAINT = {"key": "runwhere.ai/pool", "value": "a", "effect": "NoSchedule"}


def test_equal_needs_key_value_and_effect_to_match() -> None:
    assert tolerates([{"key": "runwhere.ai/pool", "operator": "Equal", "value": "a"}], TAINT)
    assert tolerates([{"key": "runwhere.ai/pool", "value": "a", "effect": "NoSchedule"}], TAINT)
    assert not tolerates([{"key": "runwhere.ai/pool", "operator": "Equal", "value": "b"}], TAINT)
    assert not tolerates([{"key": "runwhere.ai/pool", "value": "a", "effect": "NoExecute"}], TAINT)


def test_exists_matches_any_value_and_without_a_key_every_taint() -> None:
    assert tolerates([{"key": "runwhere.ai/pool", "operator": "Exists"}], TAINT)
    assert tolerates([{"operator": "Exists"}], TAINT)
    assert not tolerates([{"key": "other", "operator": "Exists"}], TAINT)


def test_an_unknown_operator_matches_nothing() -> None:
    toleration = {"key": "runwhere.ai/pool", "operator": "In", "value": "a"}
    assert not tolerates([toleration], TAINT)


def test_only_noschedule_and_noexecute_keep_a_pod_off() -> None:
    soft = {"key": "k", "value": "v", "effect": "PreferNoSchedule"}
    assert untolerated([], {"spec": {"taints": [soft]}}) is None
    assert untolerated([], {"spec": {"taints": [soft, TAINT]}}) == TAINT
