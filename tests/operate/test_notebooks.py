"""Notebooks against the sandbox: `get notebook` (address with token), `scale notebook --gpu`,
and `cp`, whose exec transport the sandbox lacks: there the command runs on this machine's own
`tar`, so the archive framing is checked end to end against GNU tar."""

from __future__ import annotations

import base64
import re
import subprocess
import tarfile
from collections.abc import Iterable, Sequence
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest

from gpuctl.cluster.client import Cluster, ExecResult, exit_status
from gpuctl.errors import UsageError
from gpuctl.spec import jobref
from gpuctl.verbs import copy
from gpuctl.verbs.common import VerbResult
from gpuctl.verbs.errors import CopyFailed
from gpuctl.verbs.scale import ScaleNotebook, Size
from tests.conftest import EXAMPLES, Env
from tests.support.sandbox import wait_for

NOTEBOOK = (
    (EXAMPLES / "notebook.yaml")
    .read_text()
    .replace("pool: dev-pool", "pool: default")
    .replace("gpu-type: a10-24g", "gpu-type: A100-80G")
    .replace("gpu-share: 2Gi", "")
)
NAME = "data-prep-notebook"


def start(env: Env) -> None:
    done = env.gpuctl("create", "-f", "-", "--wait", "--timeout", "60s", stdin=NOTEBOOK)
    assert done.returncode == 0, done.stderr


def pod(env: Env) -> dict[str, Any]:
    return env.cluster.get("Pod", f"{NAME}-0", "default")


def generated_token(env: Env) -> str:
    secret = env.cluster.get("Secret", f"{NAME}-notebook-token", "default")
    return base64.b64decode(secret["data"]["token"]).decode()


def test_get_notebook_gives_the_address_with_the_token(env: Env) -> None:
    """The example sets no token: create generated one (in a Secret the server reads as
    JUPYTER_TOKEN), and the address carries it."""
    start(env)
    token = generated_token(env)
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    container = pod(env)["spec"]["containers"][0]
    assert {"name": "JUPYTER_TOKEN", "valueFrom": {"secretKeyRef": {
        "name": f"{NAME}-notebook-token", "key": "token"}}} in container["env"]  # fmt: skip
    done = env.gpuctl("get", "notebook")
    assert done.returncode == 0, done.stderr
    header, row = (line.split() for line in done.stdout.splitlines())
    assert header == ["NAME", "STATUS", "GPU", "ADDRESS", "AGE"]
    service = env.cluster.get("Service", f"svc-{NAME}", "default")
    node = env.cluster.get("Node", pod(env)["spec"]["nodeName"])
    ip = next(a["address"] for a in node["status"]["addresses"] if a["type"] == "InternalIP")
    port = service["spec"]["ports"][0]["nodePort"]
    assert row[:4] == [NAME, "Running", "1", f"http://{ip}:{port}/?token={token}"]
    one = env.gpuctl("get", "notebook", NAME, "--no-headers").stdout.split()
    assert one[:4] == row[:4]
    described = env.gpuctl("describe", "job", NAME).stdout
    assert f"/?token={token}\n" in described

    applied = env.gpuctl("apply", "-f", "-", stdin=NOTEBOOK.replace("memory: 32Gi", "memory: 30Gi"))
    assert applied.returncode == 0, applied.stderr
    assert generated_token(env) == token  # an apply keeps it

    deleted = env.gpuctl("delete", "job", NAME, "--wait")
    assert deleted.returncode == 0, deleted.stderr
    wait_for(
        lambda: env.cluster.find("Secret", f"{NAME}-notebook-token", "default") is None,
        timeout=30,
        what="the token's Secret collected with its notebook",
    )
    missing = env.gpuctl("get", "notebook", "nothing-here")
    assert missing.returncode == 1 and "no job named 'nothing-here'" in missing.stderr


def test_scale_notebook_changes_its_gpus_and_keeps_its_workdir(env: Env) -> None:
    start(env)
    before = pod(env)
    done = env.gpuctl("scale", "notebook", NAME, "--gpu", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"statefulset.apps/{NAME} configured",
        f"notebook {NAME} restarted: the GPUs change (only CPU and memory change in place); "
        "its pod is replaced by one with 2 GPU(s), running kernels end; files in its workdirs "
        "are kept",
    ]

    def replaced() -> dict[str, Any] | None:
        now = env.cluster.find("Pod", f"{NAME}-0", "default")
        if now and now["metadata"]["uid"] != before["metadata"]["uid"]:
            return now
        return None

    after = wait_for(replaced, timeout=30)
    assert after is not None
    limits = after["spec"]["containers"][0]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == "2"
    volumes = {v["name"]: v for v in after["spec"]["volumes"]}
    assert volumes["workdir-0"]["hostPath"]["path"] == "/home/jovyan/work"
    assert volumes["dshm"]["emptyDir"] == {"medium": "Memory", "sizeLimit": "16Gi"}
    again = env.gpuctl("scale", "notebook", NAME, "--gpu", "2")
    assert again.stdout == f"notebook {NAME} already has 2 GPU(s); nothing changed\n"

    # The verb answers in the verbs' one shape: a VerbResult, and what became of the pod.
    scaled = ScaleNotebook(env.cluster).run(NAME, "default", Size(gpus=1))
    assert isinstance(scaled, VerbResult) and scaled.ok
    assert scaled.lines() == [f"statefulset.apps/{NAME} configured"]
    assert scaled.changed and scaled.resized_pod is None
    assert scaled.restart_reason == "the GPUs change (only CPU and memory change in place)"


SHARED = (
    (EXAMPLES / "notebook.yaml")
    .read_text()
    .replace("pool: dev-pool", "pool: default")
    .replace("gpu-type: a10-24g", "gpu-type: T4-16G")
)


def _container_limits(env: Env) -> dict[str, str]:
    sts = env.cluster.get("StatefulSet", NAME, "default")
    limits: dict[str, str] = sts["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    return limits


def test_scale_keeps_a_notebook_to_whole_gpus_or_a_share_as_its_spec_says(env: Env) -> None:
    """--gpu on a notebook with gpu-share would ask for whole GPUs and GPU memory at once (a
    spec `validate` refuses): refused, with the way to switch; --gpu-share changes the share."""
    done = env.gpuctl("create", "-f", "-", "--wait", "--timeout", "60s", stdin=SHARED)
    assert done.returncode == 0, done.stderr
    before = _container_limits(env)
    assert before["aliyun.com/gpu-mem"] == "2" and "nvidia.com/gpu" not in before

    whole = env.gpuctl("scale", "notebook", NAME, "--gpu", "2")
    assert (whole.returncode, whole.stdout) == (1, "")
    assert whole.stderr == (
        f"error: notebook {NAME} takes a share of one GPU (gpu-share 2Gi), and --gpu changes "
        "whole GPUs; change the share with --gpu-share (such as --gpu-share 4Gi), or for whole "
        "GPUs edit its spec (remove gpu-share, set gpu) and run `gpuctl apply -f FILE`\n"
    )
    both = env.gpuctl("scale", "notebook", NAME, "--gpu", "1", "--gpu-share", "4Gi")
    assert both.returncode == 1 and "exclude each other" in both.stderr
    assert _container_limits(env) == before

    shared = env.gpuctl("scale", "notebook", NAME, "--gpu-share", "4Gi")
    assert shared.returncode == 0, shared.stderr
    assert shared.stdout.splitlines()[-1].startswith(
        f"notebook {NAME} restarted: the GPU share changes (only CPU and memory change in "
        "place); its pod is replaced by one with gpu-share 4Gi"
    )
    after = _container_limits(env)
    assert after["aliyun.com/gpu-mem"] == "4" and "nvidia.com/gpu" not in after
    again = env.gpuctl("scale", "notebook", NAME, "--gpu-share", "4Gi")
    assert again.stdout == f"notebook {NAME} already has gpu-share 4Gi; nothing changed\n"
    bad = env.gpuctl("scale", "notebook", NAME, "--gpu-share", "4G")
    assert bad.returncode == 2
    assert "--gpu-share '4G' is not whole Gi of GPU memory (such as 4Gi)" in bad.stderr


def test_scale_refuses_a_gpu_share_on_a_notebook_with_whole_gpus(env: Env) -> None:
    start(env)
    before = _container_limits(env)
    done = env.gpuctl("scale", "notebook", NAME, "--gpu-share", "4Gi")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"error: notebook {NAME} takes 1 whole GPU(s), and --gpu-share asks for a share of one; "
        "change its GPUs with --gpu, or for a share edit its spec (set gpu-share, remove gpu or "
        "set gpu: 1) and run `gpuctl apply -f FILE`\n"
    )
    assert _container_limits(env) == before


def test_scale_refuses_what_is_not_a_notebook(env: Env) -> None:
    training = (EXAMPLES / "compute.yaml").read_text()
    # the test sandbox has no test-pool: the job waits for it
    created = env.gpuctl("create", "-f", "-", "--allow-pending", stdin=training)
    assert created.returncode == 0, created.stderr
    name = env.render(training)[-1].name
    done = env.gpuctl("scale", "notebook", name, "--gpu", "1")
    assert done.returncode == 1
    assert f"{name} is a compute job, not a notebook" in done.stderr
    wrong = env.gpuctl("scale", "deployment", name, "--gpu", "1")
    assert wrong.returncode == 2
    nothing = env.gpuctl("scale", "notebook", name)
    assert nothing.returncode == 2
    assert "say what to change: --gpu or --gpu-share, --cpu and/or --memory" in nothing.stderr
    bad = env.gpuctl("scale", "notebook", name, "--memory", "lots")
    assert bad.returncode == 2
    assert "--memory 'lots' is not a positive quantity (such as 4, 500m, 16Gi)" in bad.stderr


# ------------------------------------------------------------------------------------ cp


class LocalExec(Cluster):
    """The sandbox for everything, except that exec runs the command here."""

    def exec(
        self,
        pod: str,
        namespace: str,
        command: Sequence[str],
        *,
        container: str | None = None,
        stdin: Iterable[bytes] | None = None,
        timeout: float = 60,
    ) -> ExecResult:
        data = b"".join(stdin) if stdin is not None else None
        done = subprocess.run(list(command), input=data, capture_output=True, timeout=timeout)
        return ExecResult(done.stdout, done.stderr, done.returncode)


def local_exec(env: Env) -> Cluster:
    return LocalExec(env.cluster.api, env.cluster.namespace, env.cluster.server)


def test_cp_to_and_from_a_notebook_round_trips_a_directory(env: Env, tmp_path: Path) -> None:
    start(env)
    cluster = local_exec(env)
    source = tmp_path / "project"
    (source / "data").mkdir(parents=True)
    (source / "train.py").write_text("print('hi')\n")
    (source / "data" / "x.bin").write_bytes(bytes(range(256)) * 40)
    pod_root = tmp_path / "pod" / "work"
    pod_root.mkdir(parents=True)

    done = copy.Copy(cluster).run(str(source), f"{NAME}:{pod_root}/code", "default")
    [line] = done.lines()
    assert line.startswith(f"{source} -> {NAME}:{pod_root}/code (")
    assert [(o.kind, o.name, o.outcome) for o in done.objects] == [("Pod", f"{NAME}-0", "written")]
    assert (pod_root / "code" / "train.py").read_text() == "print('hi')\n"
    assert (pod_root / "code" / "data" / "x.bin").read_bytes() == bytes(range(256)) * 40

    copy.Copy(cluster).run(str(source / "train.py"), f"{NAME}:{pod_root}/", "default")
    assert (pod_root / "train.py").read_text() == "print('hi')\n"

    back = tmp_path / "back"
    copy.Copy(cluster).run(f"{NAME}:{pod_root}/code", str(back), "default")
    assert (back / "train.py").read_text() == "print('hi')\n"
    assert (back / "data" / "x.bin").read_bytes() == bytes(range(256)) * 40
    into = tmp_path / "into"
    into.mkdir()
    copy.Copy(cluster).run(f"{NAME}:{pod_root}/train.py", str(into), "default")
    assert (into / "train.py").read_text() == "print('hi')\n"


def test_cp_reports_the_containers_error(env: Env, tmp_path: Path) -> None:
    start(env)
    with pytest.raises(CopyFailed, match=r"copy from .*No such file"):
        copy.Copy(local_exec(env)).run(f"{NAME}:{tmp_path}/missing", str(tmp_path / "x"), "default")


@pytest.mark.parametrize(
    ("channel", "status"),
    [
        ('{"metadata":{},"status":"Success"}', (0, "")),
        ("", (0, "")),
        (
            '{"status":"Failure","reason":"NonZeroExitCode","message":"command terminated with '
            'non-zero exit code: error executing command [tar], exit code 2","details":{"causes":'
            '[{"reason":"ExitCode","message":"2"}]}}',
            (2, ""),
        ),
        # what a container runtime answers for an image without tar: no exit code at all
        (
            '{"status":"Failure","reason":"InternalError","message":"Internal error occurred: '
            'exec: \\"tar\\": executable file not found in $PATH","details":{"causes":'
            '[{"message":"exec: \\"tar\\": executable file not found in $PATH"}]},"code":500}',
            (1, 'Internal error occurred: exec: "tar": executable file not found in $PATH'),
        ),
        ("not json", (1, "not json")),
    ],
)
def test_the_exec_streams_closing_status_gives_the_exit_code_or_why(
    channel: str, status: tuple[int, str]
) -> None:
    assert exit_status(channel) == status


def test_a_copy_that_could_not_run_says_why_in_one_line(env: Env, tmp_path: Path) -> None:
    start(env)

    class NoTar(LocalExec):
        def exec(self, *args: Any, **kwargs: Any) -> ExecResult:
            return ExecResult(b"", b"", 1, 'exec: "tar": executable file not found in $PATH')

    cluster = NoTar(env.cluster.api, env.cluster.namespace, env.cluster.server)
    with pytest.raises(CopyFailed) as failed:
        copy.Copy(cluster).run(f"{NAME}:/w/out", str(tmp_path / "x"), "default")
    assert str(failed.value) == (
        f'copy from {NAME}:/w/out: exec: "tar": executable file not found in $PATH'
    )


def test_cp_needs_exactly_one_notebook_side() -> None:
    with pytest.raises(UsageError):
        copy.plan("a.py", "b.py")
    with pytest.raises(UsageError):
        copy.plan("nb:a.py", "nb:b.py")
    assert copy.plan("./nb:a.py", "nb:/w/") == (None, copy.Remote(jobref.parse("nb"), "/w/"))
    assert copy.unpack_command("/w/", "a.py") == (["tar", "-xmf", "-", "-C", "/w"], "a.py")
    assert copy.pack_command("/w/out") == ["tar", "-cf", "-", "-C", "/w", "out"]


def test_cp_takes_the_notebooks_namespace_as_kubectl_cp_does() -> None:
    """`NAMESPACE/NOTEBOOK:PATH` (kubectl cp's form) and `NAMESPACE.NOTEBOOK:PATH`."""
    for word in ("team/nb:/w/a.py", "team.nb:/w/a.py"):
        remote = copy.parse_remote(word)
        assert remote is not None and (remote.ref.namespace, remote.notebook) == ("team", "nb")
        assert remote.path == "/w/a.py"
    assert copy.parse_remote("./team/nb:/w") is None
    assert copy.parse_remote("a/b/c:/w") is None  # a local path


def test_a_cp_remote_path_is_one_line() -> None:
    """A line break anywhere in PATH (as a trailing one from a script's `$(...)`) makes the word
    no NOTEBOOK:PATH, so it is never sent to the pod as part of a path."""
    assert copy.parse_remote("nb:/w/a.py") == copy.Remote(jobref.parse("nb"), "/w/a.py")
    for word in ("nb:/w/a.py\n", "nb:/w\n/a.py", "team/nb:/w\r\n", "nb:\n"):
        assert copy.parse_remote(word) is None, word


def _archive(*names: str, link: tuple[str, str] | None = None) -> bytes:
    buffer = BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, BytesIO(b"ok"))
        if link:
            info = tarfile.TarInfo(link[0])
            info.type, info.linkname = tarfile.SYMTYPE, link[1]
            archive.addfile(info)
    return buffer.getvalue()


def test_unpack_refuses_entries_that_escape_the_destination(tmp_path: Path) -> None:
    with pytest.raises(CopyFailed, match="not under 'out'"):
        copy.unpack(_archive("out/a", "../evil"), "out", tmp_path / "got")
    with pytest.raises(CopyFailed, match="not under 'out'"):
        copy.unpack(_archive("/etc/passwd"), "out", tmp_path / "got")
    with pytest.raises(CopyFailed, match="unsafe entry"):
        copy.unpack(_archive("out/a", link=("out/l", "/etc/passwd")), "out", tmp_path / "got")
    assert not (tmp_path.parent / "evil").exists()
    assert not (tmp_path / "got").exists(), "nothing is written when one entry is refused"
    written = copy.unpack(_archive("out/a", "out/b/c"), "out", tmp_path / "got")
    assert written == ["got/a", "got/b/c"]
    assert (tmp_path / "got" / "b" / "c").read_bytes() == b"ok"
