"""The offline commands through the installed `gpuctl` entry point, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from gpuctl import __version__

from .conftest import EXAMPLES, GPUCTL, REPO, run_gpuctl

TRAINING = str(EXAMPLES / "training.yaml")


def test_render_prints_multi_document_yaml() -> None:
    done = run_gpuctl("render", "-f", TRAINING)
    assert done.returncode == 0, done.stderr
    objects = list(yaml.safe_load_all(done.stdout))
    # the class its pods name, the DeepSpeed base config, the Job
    assert [o["kind"] for o in objects] == ["PriorityClass", "ConfigMap", "Job"]
    assert done.stderr == ""


def test_render_takes_directories_repeated_files_and_stdin() -> None:
    whole = run_gpuctl("render", "-f", str(EXAMPLES))
    assert whole.returncode == 0, whole.stderr
    kinds = [o["kind"] for o in yaml.safe_load_all(whole.stdout)]
    assert kinds[0] == "Namespace" and "StatefulSet" in kinds and "ResourceQuota" in kinds

    text = (EXAMPLES / "inference.yaml").read_text()
    piped = run_gpuctl("render", "-f", TRAINING, "-f", "-", stdin=text)
    assert piped.returncode == 0, piped.stderr
    kinds_piped = {o["kind"] for o in yaml.safe_load_all(piped.stdout)}
    assert kinds_piped == {
        *("PriorityClass", "ConfigMap", "Job", "Deployment", "Service", "PodDisruptionBudget")
    }


def test_render_json_is_one_list() -> None:
    done = run_gpuctl("render", "-o", "json", "-f", str(EXAMPLES / "compute.yaml"))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["kind"] == "List"
    assert [i["kind"] for i in data["items"]] == [
        *("PriorityClass", "Service", "Deployment", "PodDisruptionBudget")
    ]


def test_namespace_flag_wins_over_the_file() -> None:
    spec = (EXAMPLES / "compute.yaml").read_text().replace("job:\n", "job:\n  namespace: team-a\n")
    from_file = run_gpuctl("render", "-f", "-", stdin=spec)
    flagged = run_gpuctl("render", "-n", "team-b", "-f", "-", stdin=spec)
    namespaced = [o for o in yaml.safe_load_all(from_file.stdout) if o["kind"] != "PriorityClass"]
    assert {o["metadata"]["namespace"] for o in namespaced} == {"team-a"}
    objects = [o for o in yaml.safe_load_all(flagged.stdout) if o["kind"] != "PriorityClass"]
    assert {o["metadata"]["namespace"] for o in objects} == {"team-b"}
    assert objects[1]["metadata"]["labels"]["runwhere.ai/namespace"] == "team-b"


def _job(text: str) -> dict[str, Any]:
    return next(o for o in yaml.safe_load_all(text) if o["kind"] == "Job")


def test_priority_classes_by_default() -> None:
    job = _job(run_gpuctl("render", "-f", TRAINING).stdout)
    assert job["spec"]["template"]["spec"]["priorityClassName"] == "gpuctl-high"
    plain = _job(run_gpuctl("render", "--no-priority-classes", "-f", TRAINING).stdout)
    assert "priorityClassName" not in plain["spec"]["template"]["spec"]
    classes = list(yaml.safe_load_all(run_gpuctl("priority-classes").stdout))
    policies = {c["metadata"]["name"]: c["preemptionPolicy"] for c in classes}
    assert policies == {
        "gpuctl-high": "PreemptLowerPriority",
        "gpuctl-medium": "PreemptLowerPriority",
        "gpuctl-low": "Never",
    }


def test_validate_says_ok_per_file() -> None:
    done = run_gpuctl("validate", "-f", str(EXAMPLES))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(list(EXAMPLES.glob("*.yaml")))
    assert all(line.endswith(": ok") for line in lines)


def test_schema_prints_a_self_contained_schema() -> None:
    done = run_gpuctl("schema", "training")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert "common.json" not in done.stdout
    assert "node_count" in schema["$defs"]["trainingResources"]["properties"]
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema)
    spec = yaml.safe_load((EXAMPLES / "training.yaml").read_text())
    jsonschema.Draft202012Validator(schema).validate(spec)
    bad = {**spec, "resources": {**spec["resources"], "gpu_type": "x"}}
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_schema_of_an_unknown_kind_is_a_usage_error() -> None:
    done = run_gpuctl("schema", "trainig")
    assert done.returncode == 2
    assert "did you mean 'training'" in done.stderr


def test_version_and_help() -> None:
    assert run_gpuctl("--version").stdout.strip() == f"gpuctl {__version__}"
    helped = run_gpuctl("--help")
    for command in ("render", "validate", "schema", "completion", "sandbox"):
        assert command in helped.stdout


def test_usage_errors_exit_2_with_the_error_prefix_of_every_other_error() -> None:
    done = run_gpuctl("render")
    assert done.returncode == 2
    assert done.stderr == (
        "error: missing option '-f' / '--filename'\nSee 'gpuctl render --help' for usage.\n"
    )
    flag = run_gpuctl("get", "jobs", "--poool", "p")
    assert flag.returncode == 2
    assert flag.stderr == (
        "error: no such option '--poool' (did you mean '--pool'?)\n"
        "See 'gpuctl get jobs --help' for usage.\n"
    )


def test_missing_file_is_one_line() -> None:
    done = run_gpuctl("render", "-f", "/nonexistent/x.yaml")
    assert done.returncode == 1
    assert done.stderr.strip() == "/nonexistent/x.yaml: no such file or directory"


def test_shell_completion_script_and_completions() -> None:
    script = run_gpuctl("completion", "bash")
    assert script.returncode == 0 and "_GPUCTL_COMPLETE" in script.stdout
    done = run_gpuctl(
        env={"_GPUCTL_COMPLETE": "bash_complete", "COMP_WORDS": "gpuctl ren", "COMP_CWORD": "1"}
    )
    assert "render" in done.stdout


def test_render_output_survives_a_closed_pipe() -> None:
    head = subprocess.run(
        f"{GPUCTL} render -f {EXAMPLES} | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "Traceback" not in head.stderr and "Broken pipe" not in head.stderr


def test_render_does_not_import_the_kubernetes_client() -> None:
    code = (
        "import sys\n"
        "from gpuctl.cli.main import main\n"
        "try:\n"
        f"    main(['render', '-f', {str(EXAMPLES)!r}, '-o', 'json'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "    ('kubernetes', 'kubernetes_validate', 'jsonschema', 'gpuctl.sandbox'))\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.stderr.splitlines()[-1] == "[]"  # after the pool nodes' kubectl commands


def test_one_file_that_is_not_yaml_hides_no_other_files_problems(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(
        (EXAMPLES / "training.yaml").read_text().replace("gpu: 4", 'gpu: "4"')
    )
    (tmp_path / "b.yaml").write_text("kind: [\n")
    (tmp_path / "c.yaml").write_text("kind: compute\nversion: v0.2\n")
    validated = run_gpuctl("validate", "-f", str(tmp_path))
    problems = validated.stderr.splitlines()
    assert [line.split(":")[0] for line in problems].count(str(tmp_path / "a.yaml")) == 1
    assert any(line.startswith(f"{tmp_path / 'b.yaml'}:2:1: invalid YAML") for line in problems)
    assert f"{tmp_path / 'c.yaml'}:2:10: version: unsupported version 'v0.2'" in validated.stderr
    for verb in ("render", "create", "apply"):
        done = run_gpuctl("--kubeconfig", str(tmp_path / "none"), verb, "-f", str(tmp_path))
        assert (done.returncode, done.stdout) == (1, ""), verb
        assert done.stderr.splitlines() == problems, verb


def test_a_node_in_two_pools_is_refused_alike_by_validate_create_and_apply(
    tmp_path: Path,
) -> None:
    """One check, before any cluster is asked: in one file, or across two (validate checks
    the files together too, as create takes them)."""
    both = REPO / "tests" / "core" / "invalid" / "pool-node-in-two-pools.yaml"
    first, second = both.read_text().split("---\n")
    (tmp_path / "a.yaml").write_text(first)
    (tmp_path / "b.yaml").write_text(second)
    for files in ([str(both)], [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]):
        given = [arg for name in files for arg in ("-f", name)]
        validated = run_gpuctl("validate", *given)
        assert validated.returncode == 1, validated.stderr
        [refusal] = validated.stderr.splitlines()
        assert "node node1 of pool pool-b is also in pool pool-a (" in refusal
        assert refusal.endswith("a node belongs to one pool (keep it in one of the two pools)")
        assert f"{files[-1]}:" in refusal and ": nodes.node1: " in refusal
        for verb in ("create", "apply"):
            done = run_gpuctl("--kubeconfig", str(tmp_path / "none"), verb, *given)
            assert (done.returncode, done.stdout, done.stderr) == (1, "", validated.stderr), verb
    assert validated.stdout == f"{tmp_path / 'a.yaml'}: ok\n"


def test_render_prints_the_pool_nodes_labels_as_kubectl_commands() -> None:
    """Nodes are not rendered (a Node applied with kubectl would replace the node's own), so
    what create writes on them is said on stderr, as commands, out of the way of the pipe."""
    done = run_gpuctl("render", "-f", str(EXAMPLES / "pool.yaml"))
    assert done.returncode == 0, done.stderr
    assert "kind: Node" not in done.stdout
    assert done.stderr.splitlines()[1:] == [
        "kubectl label node node1 runwhere.ai/pool=training-pool runwhere.ai/gpu-type=A100-100G",
        "kubectl taint node node1 runwhere.ai/pool=training-pool:NoSchedule",
        "kubectl label node node2 runwhere.ai/pool=training-pool runwhere.ai/gpu-type=A800-20G",
        "kubectl taint node node2 runwhere.ai/pool=training-pool:NoSchedule",
    ]
    shared = (EXAMPLES / "pool.yaml").read_text() + "isolation: shared\n"
    untainted = run_gpuctl("render", "-f", "-", stdin=shared)
    assert [line.split()[1] for line in untainted.stderr.splitlines()[1:]] == ["label", "label"]
    assert run_gpuctl("render", "-f", TRAINING).stderr == ""


def test_render_prints_the_command_that_makes_a_notebooks_token_secret() -> None:
    """A notebook that sets no token reads its token from a Secret create makes; render's
    output alone would leave its pod waiting for it, so render prints the kubectl command."""
    notebook = str(EXAMPLES / "notebook.yaml")
    first, second = (run_gpuctl("render", "-f", notebook, "-n", "lab") for _ in range(2))
    assert first.returncode == 0, first.stderr
    assert "kind: Secret" not in first.stdout  # a token is never printed as an object
    (command,) = [line for line in first.stderr.splitlines() if line.startswith("kubectl ")]
    prefix = "kubectl create secret generic data-prep-notebook-notebook-token -n lab "
    assert command.startswith(prefix + "--from-literal=token=")
    token = command.rsplit("=", 1)[1]
    assert len(token) == 32 and int(token, 16) >= 0
    assert first.stdout == second.stdout and first.stderr != second.stderr  # a fresh token
    with_token = (
        (EXAMPLES / "notebook.yaml")
        .read_text()
        .replace('"--no-browser"]', '"--no-browser", "--ServerApp.token=mine"]')
    )
    own = run_gpuctl("render", "-f", "-", stdin=with_token)
    assert own.returncode == 0 and "kubectl " not in own.stderr, own.stderr
