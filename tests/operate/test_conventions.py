"""The command line a kubectl user expects, against the sandbox: singular, plural and short
names, --kubeconfig/--context/-n before the command, --dry-run alone, no -n on cluster-scoped
commands, names completed from the cluster, and a broken kubeconfig in one line."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from gpuctl.sandbox import SandboxConfig
from tests.conftest import EXAMPLES, GPUCTL, Env

TRAINING = str(EXAMPLES / "training.yaml")
TEAM_JOB = """\
kind: compute
version: v0.1
job: {name: team-web, namespace: team-a}
environment: {image: nginx:1.27}
service: {port: 80}
resources: {pool: default, gpu: 0, cpu: 1, memory: 1Gi}
"""


@pytest.fixture
def sandbox_config() -> SandboxConfig:
    """The nodes the example pools name (node1, node2, …), with test timings."""
    nodes = SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes
    return SandboxConfig.fast(nodes=nodes, job_run_seconds=3600)


def create_examples(env: Env) -> None:
    """The example pool first (its nodes then carry training-pool: create refuses a job whose
    pool has no node), then the training job it runs and the example quota."""
    for example in ("pool.yaml", "training.yaml", "quota.yaml"):
        created = env.gpuctl("create", "-f", str(EXAMPLES / example))
        assert created.returncode == 0, created.stderr


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command with exactly these arguments (no --kubeconfig added)."""
    environ = {key: value for key, value in os.environ.items() if key != "KUBECONFIG"}
    return subprocess.run(
        [str(GPUCTL), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**environ, "NO_COLOR": "1", **(env or {})},
    )


def complete(words: str, env: dict[str, str] | None = None) -> list[str]:
    """What Tab offers after `words` (click's bash protocol: one `type,value` a line)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    done = run(
        env={
            "_GPUCTL_COMPLETE": "bash_complete",
            "COMP_WORDS": words,
            "COMP_CWORD": str(cword),
            **(env or {}),
        }
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line for line in done.stdout.splitlines() if line]


def without_ages(text: str) -> str:
    """The output with every age (`3s`, `2m`, `1h`) blanked: two runs may be a second apart."""
    return re.sub(r"\b\d+[smhd]\b", "AGE", text)


def names(output: str) -> list[str]:
    return [line.split()[0] for line in output.splitlines()[1:]]


# ------------------------------------------------------------------- names of things


@pytest.mark.parametrize(
    ("words", "same_as"),
    [
        (("get", "job"), ("get", "jobs")),
        (("get", "node"), ("get", "nodes")),
        (("get", "no"), ("get", "nodes")),
        (("get", "pool"), ("get", "pools")),
        (("get", "quota"), ("get", "quotas")),
        (
            ("describe", "jobs", "qwen2-7b-llamafactory-sft"),
            ("describe", "job", "qwen2-7b-llamafactory-sft"),
        ),
        (("describe", "nodes", "node1"), ("describe", "node", "node1")),
        (("describe", "no", "node1"), ("describe", "node", "node1")),
        (("describe", "pools", "training-pool"), ("describe", "pool", "training-pool")),
        (("describe", "quotas", "alice"), ("describe", "quota", "alice")),
    ],
    ids=lambda words: " ".join(words),
)
def test_singular_plural_and_short_names(
    env: Env, words: tuple[str, ...], same_as: tuple[str, ...]
) -> None:
    create_examples(env)
    alias = env.gpuctl(*words)
    canonical = env.gpuctl(*same_as)
    assert alias.returncode == 0, alias.stderr
    head = without_ages(alias.stdout).splitlines()[:2]  # events and statuses may move on
    assert len(head) == 2 and head == without_ages(canonical.stdout).splitlines()[:2]


def test_delete_takes_job_or_jobs(env: Env) -> None:
    # the test sandbox has no training-pool here: the job waits for it
    assert env.gpuctl("create", "-f", TRAINING, "--allow-pending").returncode == 0
    done = env.gpuctl("delete", "jobs", "qwen2-7b-llamafactory-sft", "--wait")  # foreground
    assert done.returncode == 0, done.stderr
    assert "job.batch/qwen2-7b-llamafactory-sft deleted" in done.stdout
    assert env.objects("Job") == {}


@pytest.mark.parametrize(
    ("words", "typo", "nearest"),
    [
        (("get", "jbos"), "jbos", "jobs"),
        (("get", "nods"), "nods", "nodes"),
        (("describe", "qouta", "x"), "qouta", "quota"),
        (("aply", "-f", TRAINING), "aply", "apply"),
    ],
)
def test_a_near_miss_names_the_nearest_command(
    words: tuple[str, ...], typo: str, nearest: str
) -> None:
    done = run(*words)
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: no such command {typo!r} (did you mean {nearest!r}?)\n")
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------- options before the command


def test_connection_options_and_namespace_before_the_command(env: Env) -> None:
    kubeconfig = str(env.kubeconfig)
    env.cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    made = subprocess.run(
        [str(GPUCTL), "--kubeconfig", kubeconfig, "create", "-f", "-"],
        input=TEAM_JOB,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    before = run(
        "--kubeconfig", kubeconfig, "--context", "gpuctl-sandbox", "-n", "team-a", "get", "jobs"
    )
    assert before.returncode == 0, before.stderr
    assert names(before.stdout) == ["team-web"]
    after = run("get", "jobs", "--kubeconfig", kubeconfig, "-n", "team-a")
    assert names(after.stdout) == ["team-web"]
    # given after the command, the command's own option wins
    own = run("-n", "team-a", "get", "jobs", "-n", "default", "--kubeconfig", kubeconfig)
    assert own.returncode == 0 and own.stdout == ""
    assert "No jobs found in namespace default." in own.stderr
    wrong_context = run("--kubeconfig", kubeconfig, "get", "jobs", "--context", "gpuctl-sandbox")
    assert wrong_context.returncode == 0, wrong_context.stderr


def test_render_never_reads_the_kubeconfig_given_before_it(tmp_path: Path) -> None:
    broken = tmp_path / "kubeconfig"
    broken.write_text("clusters: [\n")
    done = run(
        "--kubeconfig", str(broken), "--context", "x", "-n", "team-a", "render", "-f", TRAINING
    )
    assert done.returncode == 0, done.stderr
    objects = list(yaml.safe_load_all(done.stdout))  # its class, DeepSpeed's ConfigMap, the Job
    namespaces = [o["metadata"].get("namespace") for o in objects]
    assert namespaces == [None, "team-a", "team-a"]  # global -n


def test_dry_run_alone_means_client(env: Env) -> None:
    # the test sandbox has no training-pool here: the job would wait for it
    alone = env.gpuctl("apply", "-f", TRAINING, "--dry-run", "--allow-pending")
    client = env.gpuctl("apply", "--dry-run=client", "-f", TRAINING, "--allow-pending")
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout == client.stdout
    assert "(dry run)" in alone.stdout and "server" not in alone.stdout
    create = env.gpuctl("create", "--dry-run", "-f", TRAINING, "--allow-pending")
    assert create.returncode == 0 and create.stdout == client.stdout
    assert env.objects("Job") == {}


@pytest.mark.parametrize(
    "words",
    [
        ("get", "nodes"),
        ("describe", "node"),
        ("label", "node"),
        ("get", "label"),
        ("get", "pools"),
        ("describe", "pool"),
        ("add", "node"),
        ("remove", "node"),
    ],
    ids=" ".join,
)
def test_cluster_scoped_commands_have_no_namespace_option(words: tuple[str, ...]) -> None:
    helped = run(*words[:2] if words[0] in ("get", "describe") else words[:1], "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--kubeconfig" in helped.stdout and "--context" in helped.stdout
    assert "--namespace" not in helped.stdout and "-n," not in helped.stdout


def test_namespaced_commands_keep_the_namespace_option() -> None:
    for words in (("get", "jobs"), ("describe", "job"), ("logs",), ("apply",), ("get", "quotas")):
        assert "-n, --namespace" in run(*words, "--help").stdout, words


# ------------------------------------------------------------------------- completion


def test_names_complete_from_the_cluster(env: Env) -> None:
    create_examples(env)
    k = f"--kubeconfig {env.kubeconfig}"
    assert complete(f"gpuctl describe job {k} qw") == ["plain,qwen2-7b-llamafactory-sft"]
    assert complete(f"gpuctl {k} logs ") == ["plain,qwen2-7b-llamafactory-sft"]
    assert complete(f"gpuctl delete job {k} ") == ["plain,qwen2-7b-llamafactory-sft"]
    assert complete(f"gpuctl delete {k} j") == ["plain,job"]
    nodes = complete(f"gpuctl describe node {k} ")
    assert "plain,node1" in nodes and "plain,node2" in nodes
    four = ["plain,node1", "plain,node2", "plain,node3", "plain,node4"]
    assert complete(f"gpuctl label node {k} node") == four
    assert complete(f"gpuctl {k} remove node node") == four
    assert complete(f"gpuctl {k} describe pool t") == ["plain,training-pool"]
    assert complete(f"gpuctl get nodes {k} --pool ") == ["plain,training-pool"]
    assert complete(f"gpuctl describe quota {k} a") == ["plain,alice"]
    assert complete(f"gpuctl get jobs {k} --context ") == ["plain,gpuctl-sandbox"]
    via_env = complete("gpuctl describe job ", env={"KUBECONFIG": str(env.kubeconfig)})
    assert via_env == ["plain,qwen2-7b-llamafactory-sft"]


def test_completion_is_silent_without_a_cluster(tmp_path: Path) -> None:
    broken = tmp_path / "kubeconfig"
    broken.write_text("clusters: [\n")
    assert complete(f"gpuctl describe job --kubeconfig {broken} ") == []
    assert complete(f"gpuctl describe node --kubeconfig {tmp_path / 'none'} ") == []
    assert complete("gpuctl get pools --context ", env={"KUBECONFIG": str(broken)}) == []


def test_file_names_complete_after_f() -> None:
    assert complete("gpuctl apply -f exa") == ["file,exa"]
    assert complete("gpuctl render --filename ") == ["file,"]
    assert complete("gpuctl delete -f x") == ["file,x"]


# --------------------------------------------------------------------- the kubeconfig


def _kubeconfig_error(*args: str) -> str:
    done = run("get", "jobs", *args)
    assert done.returncode == 1, done
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    return done.stderr.strip()


def test_an_unknown_context_lists_the_contexts(env: Env) -> None:
    message = _kubeconfig_error("--kubeconfig", str(env.kubeconfig), "--context", "prod")
    assert message == (
        f"error: {env.kubeconfig}: no context named 'prod' (contexts: gpuctl-sandbox)"
    )
    before = run("--context", "prod", "get", "jobs", "--kubeconfig", str(env.kubeconfig))
    assert before.stderr.strip() == message


def test_a_kubeconfig_that_is_not_yaml_names_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "kubeconfig"
    broken.write_text("apiVersion: v1\nclusters: [\n")
    message = _kubeconfig_error("--kubeconfig", str(broken))
    assert message.startswith(f"error: {broken}:3:1: not valid YAML: ")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("- a\n- b\n", "not a kubeconfig (expected a mapping with clusters, users and contexts)"),
        ("", "not a usable kubeconfig: "),
        (
            "contexts:\n- name: a\n  context: {cluster: c, user: u}\ncurrent-context: gone\n",
            "its current-context names no context (give --context; contexts: a)",
        ),
        (
            "contexts:\n- name: a\n  context: {cluster: c, user: u}\ncurrent-context: a\n",
            "context 'a' cannot be used: ",
        ),
    ],
    ids=["a-list", "empty", "dangling-current-context", "missing-cluster"],
)
def test_a_malformed_kubeconfig_is_one_line(tmp_path: Path, text: str, says: str) -> None:
    broken = tmp_path / "kubeconfig"
    broken.write_text(text)
    assert _kubeconfig_error("--kubeconfig", str(broken)).startswith(f"error: {broken}: {says}")


def test_a_missing_kubeconfig_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    message = _kubeconfig_error("--kubeconfig", str(missing))
    assert message.startswith(f"error: {missing}: no such file (")
