"""`gpuctl get quotas` and `describe quota` against the sandbox: used/hard as pods come and go,
a quota at and over its limit, every output format, and a missing user."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuctl.cli.views import quotas as quota_views
from gpuctl.cluster.client import Cluster
from gpuctl.inventory import quotas
from gpuctl.render import engine
from gpuctl.sandbox import SandboxConfig
from gpuctl.spec.document import load_text
from gpuctl.spec.kinds import Options
from tests.conftest import Env
from tests.support.sandbox import SandboxCluster, wait_for

REPO = Path(__file__).resolve().parents[2]
GPUCTL = Path(sys.executable).with_name("gpuctl")

QUOTA = """kind: quota
version: v0.1
metadata:
  name: team-quota
  description: "GPU team"
users:
  alice:
    cpu: 4
    memory: 8Gi
    gpu: 4
  bob:
    cpu: 10
    memory: 20Gi
    gpu: 4
  carol:
    gpu: 2
"""

JOB = """kind: training
version: v0.1
job:
  name: {name}
  namespace: {user}
environment:
  image: busybox:1.36
  command: ["sleep", "3600"]
resources:
  gpu: {gpu}
  cpu: {cpu}
  memory: {memory}
"""


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    # Training pods must keep running: a finished pod no longer counts against a quota.
    return SandboxConfig.fast(job_run_seconds=3600)


@dataclass
class QuotaEnv(Env):
    """The shared Env, with jobs created in-process and quota usage at hand."""

    def create(self, text: str) -> None:
        """Create what a spec renders, in-process (setup, not what is under test)."""
        for manifest in engine.render_documents(load_text("spec.yaml", text), Options()):
            self.cluster.create(manifest.obj)

    def job(self, name: str, user: str, gpu: int, cpu: str, memory: str) -> None:
        self.create(JOB.format(name=name, user=user, gpu=gpu, cpu=cpu, memory=memory))

    def used(self, user: str, key: str) -> str:
        quota = self.cluster.get("ResourceQuota", "team-quota", user)
        return str(((quota.get("status") or {}).get("used") or {}).get(key, ""))

    def wait_used(self, user: str, key: str, value: str) -> None:
        wait_for(lambda: self.used(user, key) == value, what=f"{user} {key} used {value}")


@pytest.fixture
def env(sandbox: SandboxCluster) -> QuotaEnv:
    return QuotaEnv(sandbox, Cluster.connect(str(sandbox.kubeconfig)))


@pytest.fixture
def busy(env: QuotaEnv) -> QuotaEnv:
    """Three users: alice at her limit, bob partly used, carol limited on GPUs only."""
    env.create(QUOTA)
    env.job("a1", "alice", 2, "2", "4Gi")
    env.job("a2", "alice", 2, "2", "4Gi")
    env.job("b1", "bob", 3, "7500m", "15.5Gi")
    env.wait_used("alice", "requests.nvidia.com/gpu", "4")
    env.wait_used("bob", "requests.nvidia.com/gpu", "3")
    return env


def _age_masked(text: str) -> str:
    lines = []
    for line in text.splitlines():
        head, _, last = line.rpartition("   ")
        lines.append(line if last == "AGE" else f"{head}   <age>")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- get quotas


def test_get_quotas_table(busy: QuotaEnv, snapshot_text: Any) -> None:
    done = busy.gpuctl("get", "quotas")
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout  # not a terminal: no colour
    assert _age_masked(done.stdout) == snapshot_text


def test_get_quotas_wide_and_no_headers(busy: QuotaEnv, snapshot_text: Any) -> None:
    wide = busy.gpuctl("get", "quotas", "-o", "wide")
    bare = busy.gpuctl("get", "quotas", "--no-headers", "-A")  # -A: accepted, and implied
    assert wide.returncode == bare.returncode == 0, wide.stderr + bare.stderr
    assert not bare.stdout.startswith("USER")
    assert _age_masked(wide.stdout) + "---\n" + _age_masked(bare.stdout) == snapshot_text


def test_get_quotas_of_one_user(busy: QuotaEnv) -> None:
    done = busy.gpuctl("get", "quotas", "bob", "--no-headers")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:5] == ["bob", "team-quota", "7.5/10", "15.5Gi/20Gi", "3/4"]
    by_namespace = busy.gpuctl("get", "quotas", "-n", "bob", "--no-headers")
    assert by_namespace.stdout.split()[:5] == done.stdout.split()[:5]
    clash = busy.gpuctl("get", "quotas", "bob", "-n", "alice")
    assert clash.returncode == 2 and "differ" in clash.stderr


def test_get_quotas_is_one_request_whatever_the_number_of_users(env: QuotaEnv) -> None:
    users = "\n".join(f"  user-{i}:\n    gpu: 1" for i in range(12))
    env.create(f"kind: quota\nversion: v0.1\nmetadata:\n  name: q\nusers:\n{users}\n")
    env.sandbox.requests.clear()
    done = env.gpuctl("get", "quotas", "--no-headers")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 12
    calls = env.sandbox.requests.api_calls()
    assert [(c.verb, c.resource) for c in calls] == [("list", "resourcequotas")]


def test_only_gpuctl_quotas_are_listed(env: QuotaEnv) -> None:
    env.create(QUOTA)
    env.cluster.create(
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "by-hand", "namespace": "default"},
            "spec": {"hard": {"pods": "10"}},
        }
    )
    done = env.gpuctl("get", "quotas", "--no-headers")
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["alice", "bob", "carol"]
    missing = env.gpuctl("describe", "quota", "default")
    assert missing.returncode == 1 and "no quota for user 'default'" in missing.stderr


def test_output_yaml_json_and_name(busy: QuotaEnv) -> None:
    as_yaml = yaml.safe_load(busy.gpuctl("get", "quotas", "-o", "yaml").stdout)
    as_json = json.loads(busy.gpuctl("get", "quotas", "-o", "json").stdout)
    for listed in (as_yaml, as_json):
        assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
        assert [i["metadata"]["namespace"] for i in listed["items"]] == ["alice", "bob", "carol"]
        first = listed["items"][0]
        assert list(first)[:2] == ["apiVersion", "kind"]
        assert first["kind"] == "ResourceQuota"
        assert first["status"]["used"]["requests.nvidia.com/gpu"] == "4"
        assert "managedFields" not in first["metadata"]
    names = busy.gpuctl("get", "quotas", "alice", "-o", "name")
    assert names.stdout == "resourcequota/team-quota\n"


def test_no_quotas_at_all(env: QuotaEnv) -> None:
    table = env.gpuctl("get", "quotas")
    assert (table.returncode, table.stdout, table.stderr) == (0, "", "No quotas found.\n")
    listed = json.loads(env.gpuctl("get", "quotas", "-o", "json").stdout)
    assert listed["items"] == []


def test_a_missing_user_is_one_line_and_exit_1(env: QuotaEnv) -> None:
    env.create(QUOTA)
    for args in (("get", "quotas", "nobody"), ("describe", "quota", "nobody")):
        done = env.gpuctl(*args)
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == "error: no quota for user 'nobody'\n"


# -------------------------------------------------------------------------- describe quota


def test_describe_quota_at_its_limit(busy: QuotaEnv) -> None:
    done = busy.gpuctl("describe", "quota", "alice")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == [
        "User:         alice",
        "Quota:        team-quota",
        "Description:  GPU team",
    ]
    rows = [line.split() for line in lines[lines.index("") + 1 :]]
    assert rows == [
        ["Resource", "Used/Hard", "Usage"],
        ["requests.cpu", "4/4", "100%"],
        ["limits.cpu", "4/4", "100%"],
        ["requests.memory", "8Gi/8Gi", "100%"],
        ["limits.memory", "8Gi/8Gi", "100%"],
        ["requests.nvidia.com/gpu", "4/4", "100%"],
        # gpu: 4 limits every vendor's GPUs, the ones no pod uses too
        ["requests.amd.com/gpu", "0/4", "0%"],
        ["requests.gpu.intel.com/i915", "0/4", "0%"],
        ["requests.gpu.intel.com/xe", "0/4", "0%"],
        ["requests.huawei.com/Ascend910", "0/4", "0%"],
        ["requests.huawei.com/Ascend310P", "0/4", "0%"],
        ["requests.huawei.com/Ascend310", "0/4", "0%"],
    ]


def test_describe_quota_partly_used(busy: QuotaEnv) -> None:
    text = busy.gpuctl("describe", "quota", "bob").stdout
    assert re.search(r"^requests\.nvidia\.com/gpu +3/4 +75%$", text, re.M), text
    assert re.search(r"^requests\.cpu +7\.5/10 +75%$", text, re.M), text
    assert re.search(r"^requests\.memory +15\.5Gi/20Gi +77%$", text, re.M), text
    carol = busy.gpuctl("describe", "quota", "carol").stdout
    assert re.search(r"^requests\.nvidia\.com/gpu +0/2 +0%$", carol, re.M), carol
    assert "requests.cpu" not in carol  # not limited, so not listed


def test_over_quota_pods_are_refused_and_usage_stays_at_hard(busy: QuotaEnv) -> None:
    busy.job("a3", "alice", 1, "1", "1Gi")

    def refusal() -> str:
        events = busy.cluster.list(
            "Event", "alice", field_selector="involvedObject.name=a3,reason=FailedCreate"
        )
        return next((str(e.get("message")) for e in events), "")

    message = wait_for(refusal, what="FailedCreate of a3")
    assert "exceeded quota: team-quota" in message
    text = busy.gpuctl("describe", "quota", "alice").stdout
    assert re.search(r"^requests\.nvidia\.com/gpu +4/4 +100%$", text, re.M), text
    assert busy.used("alice", "requests.nvidia.com/gpu") == "4"


def test_create_wait_over_quota_fails_naming_the_quota(busy: QuotaEnv) -> None:
    spec = JOB.format(name="a3", user="alice", gpu=1, cpu="1", memory="1Gi")
    done = busy.gpuctl("create", "-f", "-", "--wait", "--timeout", "3s", stdin=spec)
    assert done.returncode == 1
    assert "job.batch/a3 created" in done.stdout
    assert "team-quota" in done.stderr, done.stderr


def test_usage_follows_pods_going_away(busy: QuotaEnv) -> None:
    busy.cluster.delete("Job", "a1", "alice", propagation="Foreground")
    busy.wait_used("alice", "requests.nvidia.com/gpu", "2")
    done = busy.gpuctl("get", "quotas", "alice", "--no-headers")
    assert done.stdout.split()[2:5] == ["2/4", "4Gi/8Gi", "2/4"]


# --------------------------------------------------------------------------------- colour


def test_colour_on_a_terminal_only_and_never_with_no_color(busy: QuotaEnv) -> None:
    coloured = busy.gpuctl_on_terminal("get", "quotas")
    assert "\x1b[31m4/4\x1b[0m" in coloured  # alice: 100%, red
    assert "\x1b[33m3/4\x1b[0m" in coloured  # bob: 75%, yellow
    assert "\x1b[33m0/2" not in coloured and "   0/2" in coloured  # carol: fine, plain
    # the columns still line up: colour codes take no width
    plain = re.sub(r"\x1b\[[0-9;]*m", "", coloured)
    assert _age_masked(plain) == _age_masked(busy.gpuctl("get", "quotas").stdout)
    assert "\x1b[" not in busy.gpuctl_on_terminal("get", "quotas", env={"NO_COLOR": "1"})
    described = busy.gpuctl_on_terminal("describe", "quota", "alice")
    assert "\x1b[31m100%\x1b[0m" in described


# ------------------------------------------------------------------------ logic, no cluster


def _quota(used: dict[str, str], hard: dict[str, str]) -> quotas.Quota:
    return quotas.quota_of(
        {
            "metadata": {
                "name": "q",
                "namespace": "u",
                "creationTimestamp": "2026-01-01T00:00:00Z",
                "annotations": {quotas.DESCRIPTION_ANNOTATION: "d"},
            },
            "spec": {"hard": hard},
            "status": {"hard": hard, "used": used},
        }
    )


@pytest.mark.parametrize(
    ("used", "hard", "shown", "percent"),
    [
        ("0", "20Gi", "0/20Gi", 0),
        ("15872Mi", "20Gi", "15.5Gi/20Gi", 77),
        ("1", "20Gi", "1/20Gi", 0),  # one byte: not rounded to 0Gi
        ("7500m", "10", "7.5/10", 75),
        ("3333m", "10", "3333m/10", 33),  # 3.333 would need three decimals: as the server says
        ("4", "4", "4/4", 100),
        ("899m", "1", "899m/1", 89),  # rounded down: 89.9% is not yet 90%
        ("0", "0", "0/0", None),  # gpu: 0 forbids GPUs; no percentage of nothing
        ("250m", "500m", "250m/500m", 50),
        ("1500M", "2G", "1.5G/2G", 75),
    ],
)
def test_used_of_hard_and_percent(used: str, hard: str, shown: str, percent: int | None) -> None:
    usage = quotas.Usage("requests.memory", used, hard)
    assert (usage.fraction(), usage.percent) == (shown, percent)


def test_rows_with_frozen_age_and_colour() -> None:
    quota = _quota(
        {"requests.cpu": "9", "requests.nvidia.com/gpu": "3"},
        {"requests.cpu": "10", "requests.nvidia.com/gpu": "4"},
    )
    at = datetime.fromisoformat("2026-01-01T03:00:00+00:00")
    assert quota_views.rows([quota], at=at) == [["u", "q", "9/10", "-", "3/4", "3h"]]
    red, yellow = quota_views.rows([quota], colour=True, at=at)[0][2:5:2]
    assert (red, yellow) == ("\x1b[31m9/10\x1b[0m", "\x1b[33m3/4\x1b[0m")
    wide = quota_views.rows([quota], wide=True, at=at)[0]
    assert wide == ["u", "q", "9/10", "-", "3/4", "-", "-", "d", "3h"]


def test_describe_text() -> None:
    quota = _quota(
        {"requests.nvidia.com/gpu": "2", "requests.cpu": "500m", "pods": "3"},
        {"requests.nvidia.com/gpu": "4", "requests.cpu": "1", "pods": "10"},
    )
    at = datetime.fromisoformat("2026-01-01T00:00:45+00:00")
    assert quota_views.describe(quota, at=at) == (
        "User:         u\n"
        "Quota:        q\n"
        "Description:  d\n"
        "Age:          45s\n"
        "\n"
        "Resource                 Used/Hard  Usage\n"
        "requests.cpu             0.5/1      50%\n"
        "requests.nvidia.com/gpu  2/4        50%\n"
        "pods                     3/10       30%\n"
    )
