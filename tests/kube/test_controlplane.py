"""The launcher's own parts that need no running control plane."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from cryptography import x509

from gpuctl.sandbox import SandboxConfig
from tests.kube import controlplane, images, nodes, pki


def test_without_go_or_binaries_the_reason_is_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(controlplane, "BIN", tmp_path / "none")
    monkeypatch.setattr(controlplane, "go_binary", lambda: None)
    reason = controlplane.unavailable_reason()
    assert reason is not None and "needs Go" in reason
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "kubecp").touch()
    (tmp_path / "none" / "kwok").touch()
    assert controlplane.unavailable_reason() is None  # built once, Go is no longer needed


def test_the_serving_certificate_names_loopback_and_the_kubernetes_service(
    tmp_path: Path,
) -> None:
    pki.generate(tmp_path)
    cert = x509.load_pem_x509_certificate((tmp_path / "server.crt").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
    assert "kubernetes.default.svc" in names.get_values_for_type(x509.DNSName)
    assert (tmp_path / "sa.key").stat().st_mode & 0o077 == 0


def test_the_nodes_are_the_sandboxs_and_the_example_pool_nodes() -> None:
    nodes = {node.name: node for node in controlplane.node_set()}
    assert list(nodes)[:4] == ["gpu-a100-0", "gpu-a100-1", "gpu-t4-0", "cpu-0"]
    example = SandboxConfig.load(controlplane.EXAMPLE_CLUSTER)
    assert {node.name for node in example.nodes} <= set(nodes)
    assert nodes["node1"].labels["runwhere.ai/gpu-type"] == "A100-100G"
    assert nodes["gpu-t4-0"].capacity["nvidia.com/gpu"] == "4"


def test_every_component_listens_on_loopback_only(tmp_path: Path) -> None:
    state = controlplane.State(str(tmp_path), dict.fromkeys(("etcd", "etcd_peer"), 1), {}, "t")
    state.ports.update(apiserver=2, kwok=3)
    commands = controlplane._commands(state)
    flags = [flag for argv in commands.values() for flag in argv if "://" in flag or ":" in flag]
    addresses = [flag for flag in flags if "127.0.0.1" in flag or "0.0.0.0" in flag]
    assert addresses and not any("0.0.0.0" in flag for flag in addresses)
    assert "--bind-address=127.0.0.1" in commands["kube-apiserver"]


def test_go_mod_replaces_every_staging_module_at_the_matching_version() -> None:
    gomod = (controlplane.HERE / "go.mod").read_text()
    upstream = "\n".join(
        f"\tk8s.io/{name} => ./staging/src/k8s.io/{name}" for name in ("api", "client-go")
    )
    assert controlplane.staging_replaces(upstream) == [
        "k8s.io/api => k8s.io/api v0.33.4",
        "k8s.io/client-go => k8s.io/client-go v0.33.4",
    ]
    assert f"k8s.io/kubernetes {controlplane.KUBERNETES}" in gomod
    assert gomod.count("=> k8s.io/") == 31  # one per staging module of Kubernetes v1.33


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError(f"built again: {args}")


def test_the_real_nodes_parts_are_built_once_then_taken_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CoreDNS and the images, once in the cache, are not built again; a change to what the
    images are made of (here JupyterLab's version, or a package of the JAX image) names another
    cache directory."""
    monkeypatch.setattr(controlplane, "CACHE", tmp_path)
    binary = nodes.coredns_binary()  # what a finished build leaves
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"")
    images.containerd_root().mkdir(parents=True)
    images.archive().write_bytes(b"")
    (images.containerd_root() / "ready").write_text("")
    monkeypatch.setattr(controlplane, "run_go", _never)
    monkeypatch.setattr(images, "_run", _never)
    monkeypatch.setattr(images, "_preload", _never)
    nodes.build()
    assert images.build() == images.archive()
    built_in = images.cache_dir()
    changes = {"JUPYTERLAB": "0.0.1", "JAX_PACKAGES": (*images.JAX_PACKAGES[:-1], "numpy==1")}
    try:
        for name, changed in changes.items():
            with monkeypatch.context() as patched:
                patched.setattr(images, name, changed)
                images._digest.cache_clear()
                assert images.cache_dir() != built_in and not images.built(), name
    finally:
        monkeypatch.undo()
        images._digest.cache_clear()
