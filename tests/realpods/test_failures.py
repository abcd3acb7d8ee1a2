"""Commands that fail for real: `create --wait` reports the real exit code and the last log
lines; a crash loop and a container killed for its memory are explained in plain words."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.realpods.conftest import gpuctl
from tests.realpods.test_inference import inference_spec
from tests.realpods.test_training import job_status, training_spec
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods

CRASH = """print('loading shards', flush=True)
print('shard 7 is corrupt', flush=True)
raise SystemExit(3)
"""


def why(cluster: Cluster, name: str) -> str:
    described = gpuctl(cluster, "describe", "job", name).stdout
    found = re.search(r"^Why:\s+(.*)$", described, re.M)
    return found.group(1) if found else described


def test_create_wait_fails_with_the_exit_code_and_the_last_lines(real_pods: Cluster) -> None:
    spec = training_spec("crash", ["python3", "-c", CRASH])
    created = gpuctl(real_pods, "create", "-f", "-", "--wait", stdin=yaml.safe_dump(spec))
    assert created.returncode == 1, created.stdout
    assert "exited with code 3" in created.stderr, created.stderr
    assert "shard 7 is corrupt" in created.stderr, created.stderr


def test_a_crash_loop_is_explained(real_pods: Cluster) -> None:
    spec = inference_spec("loop", {})
    spec["environment"]["command"] = ["python3", "-c", CRASH]
    created = gpuctl(real_pods, "create", "-f", "-", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    wait_for(lambda: "CrashLoopBackOff" in why(real_pods, "loop"), 120, 1, "the crash loop")
    explained = why(real_pods, "loop")
    assert "keeps crashing" in explained and "exited with code 3" in explained, explained


def test_a_container_killed_for_its_memory_is_explained(real_pods: Cluster) -> None:
    hog = "blocks = []\nwhile True: blocks.append(bytearray(16 * 2**20))\n"
    spec = training_spec("hog", ["python3", "-c", hog], memory="128Mi")
    created = gpuctl(real_pods, "create", "-f", "-", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    wait_for(lambda: job_status(real_pods, "hog") == "Failed", 120, 1, "the job to fail")
    explained = why(real_pods, "hog")
    assert "ran out of memory" in explained and "128Mi" in explained, explained
