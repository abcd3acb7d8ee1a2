"""The real nodes' container images, built on this machine (no image registry is reachable):

- PAUSE, the pod sandbox (pause.c, compiled statically): containerd's sandbox_image;
- PYTHON, Debian bookworm (debootstrap's minbase) with python3: what the scenarios run in;
- NOTEBOOK, PYTHON plus JupyterLab from PyPI (`jupyter-lab` on PATH);
- INFERENCE, PYTHON plus inference_server.py: HTTP with a /health;
- JAX, PYTHON plus JAX (jax, jaxlib and what they import: numpy, ml_dtypes, opt_einsum) from
  PyPI, without scipy (jax requires it, but neither `import jax` nor a multi-process collective
  over gloo reads it): a real framework's CPU collectives for the multi-node scenario.

They are one OCI image archive (an image layout in a tar: index.json naming the five, blobs
named by their sha256) written by `_archive`; the four Python images share their first layer,
which is in it once. They are built once into CACHE/images-<digest of this folder>/ and
imported into each node's containerd at start, so every node lists them in its
status.images. Their names are under `localhost/`: a pull that
should never happen (an image not built here) goes to this machine, which has no registry.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEBIAN = "bookworm"
LAYOUT = 1  # raise it when a change here changes what the images hold
MIRROR = "http://deb.debian.org/debian"
JUPYTERLAB = "4.6.6"
JAX = "0.10.2"
# what the JAX image installs, each pinned, with no dependency resolution (`pip --no-deps`)
JAX_PACKAGES = (
    f"jax=={JAX}",
    f"jaxlib=={JAX}",
    "numpy==2.4.6",
    "ml_dtypes==0.6.0",
    "opt_einsum==3.4.0",
)
PAUSE = "localhost/gpuctl/pause:3.10"
PYTHON = "localhost/gpuctl/python:3.11"
NOTEBOOK = "localhost/gpuctl/jupyterlab-python:4.6"
INFERENCE = "localhost/gpuctl/inference-python:1"
JAX_PYTHON = "localhost/gpuctl/jax-python:0.10"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# where pip (through PIP_CERT, REQUESTS_CA_BUNDLE or SSL_CERT_FILE) may be told to find them
CA_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt",)
# what a minimal image does not need: documentation, translations, apt's downloads and lists
PRUNED = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "usr/share/lintian",
    "var/cache/apt",
    "var/lib/apt/lists",
    "var/cache/debconf",
    "var/log",
)


NAMESPACE = "k8s.io"  # containerd's namespace for the images the kubelet sees


class ImageError(RuntimeError):
    """An image could not be built; the message says why."""


@dataclass(frozen=True)
class Image:
    """One image: its name, its layers (tar files, bottom first) and how it starts."""

    name: str
    layers: tuple[Path, ...]
    command: tuple[str, ...]
    env: tuple[str, ...] = (f"PATH={PATH}",)


@functools.cache
def _digest() -> str:
    """What the images are made of (the versions, pause.c, the inference server, LAYOUT):
    a change to any builds them anew."""
    digest = hashlib.sha256(f"{DEBIAN} {JUPYTERLAB} {' '.join(JAX_PACKAGES)} {LAYOUT}".encode())
    for name in ("pause.c", "inference_server.py"):
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()[:10]


def cache_dir() -> Path:
    from tests.kube.controlplane import CACHE  # the control plane's cache, beside its binaries

    return CACHE / f"images-{_digest()}"


NAMES = (PAUSE, PYTHON, NOTEBOOK, INFERENCE, JAX_PYTHON)


def archive() -> Path:
    """The archive of every image, in the cache (built or not)."""
    return cache_dir() / "images.tar"


def containerd_root() -> Path:
    """A containerd root directory holding every image, imported and unpacked once: each real
    node's containerd starts from a copy of it (its files hard-linked, but for its databases)
    instead of importing the archive again."""
    return cache_dir() / "containerd-root"


def built() -> bool:
    return archive().exists() and (containerd_root() / "ready").exists()


def missing_tools() -> list[str]:
    return [tool for tool in ("debootstrap", "gcc", "tar", "chroot") if shutil.which(tool) is None]


def _run(*argv: str, cwd: Path | None = None) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise ImageError(f"`{' '.join(argv[:4])} ...` failed ({done.returncode}):\n{tail}")


# ------------------------------------------------------------------ layers


def _layer(rootfs: Path, into: Path) -> Path:
    """The tree under `rootfs` as one uncompressed layer (owners, modes, links kept)."""
    _run("tar", "--numeric-owner", "--xattrs", "-C", str(rootfs), "-cf", str(into), ".")
    return into


def _pause_layer(work: Path) -> Path:
    rootfs = work / "pause-rootfs"
    rootfs.mkdir()
    _run("gcc", "-static", "-Os", "-o", str(rootfs / "pause"), str(HERE / "pause.c"))
    _run("strip", str(rootfs / "pause"))
    return _layer(rootfs, work / "pause.tar")


def _debian_rootfs(work: Path) -> Path:
    """debootstrap's minbase with python3, less what a container never reads."""
    rootfs = work / "debian"
    _run("debootstrap", "--variant=minbase", "--include=python3", DEBIAN, str(rootfs), MIRROR)
    for path in PRUNED:
        for child in (rootfs / path).glob("*"):
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    (rootfs / "etc" / "resolv.conf").write_text("")  # the kubelet mounts the pod's own
    return rootfs


@contextmanager
def _overlay(lower: Path, work: Path, name: str) -> Iterator[tuple[Path, Path]]:
    """`lower` with a writable layer on top: (the merged tree, the layer's own files)."""
    upper, scratch, merged = (work / f"{name}-{part}" for part in ("upper", "work", "merged"))
    for path in (upper, scratch, merged):
        path.mkdir()
    options = f"lowerdir={lower},upperdir={upper},workdir={scratch}"
    _run("mount", "-t", "overlay", "overlay", "-o", options, str(merged))
    try:
        yield merged, upper
    finally:
        _run("umount", str(merged))


def _pip_wheel(work: Path) -> Path:
    """pip's own wheel (from PyPI, once), for the image's Python to run pip from."""
    wheels = work / "pip"
    if not wheels.exists():
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels)]
        _run(*pip, "pip")
    return next(wheels.glob("pip-*.whl"))


def _jupyter_layer(base: Path, work: Path) -> Path:
    """JupyterLab and its dependencies, as pip resolves them."""
    return _pip_layer(base, work, "jupyter", (f"jupyterlab=={JUPYTERLAB}",))


def _jax_layer(base: Path, work: Path) -> Path:
    """JAX_PACKAGES exactly (no dependency of theirs beyond them: scipy is left out)."""
    return _pip_layer(base, work, "jax", ("--no-deps", *JAX_PACKAGES))


def _pip_layer(base: Path, work: Path, name: str, requirements: tuple[str, ...]) -> Path:
    """`requirements` installed by the image's own Python (pip from PyPI, run from its wheel),
    so that their commands start with #!/usr/bin/python3; only the files the install added.
    This machine's resolver and CA certificates are lent to the install and not kept."""
    wheel = _pip_wheel(work)
    with _overlay(base, work, name) as (merged, upper):
        shutil.copy(wheel, merged / "tmp" / wheel.name)
        shutil.copy("/etc/resolv.conf", merged / "etc" / "resolv.conf")  # PyPI, while building
        for bundle in CA_BUNDLES:
            if Path(bundle).exists():
                (merged / bundle.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(bundle, merged / bundle.lstrip("/"))
        install = ["chroot", str(merged), "python3", f"/tmp/{wheel.name}/pip", "install"]
        install += ["-q", "--no-cache-dir", "--break-system-packages", "--no-warn-script-location"]
        _run(*install, *requirements)
        (merged / "tmp" / wheel.name).unlink()
        (merged / "etc" / "resolv.conf").write_text("")
        for whiteout in [p for p in upper.rglob("*") if p.is_char_device()]:
            whiteout.unlink()  # nothing of the base was deleted on purpose
        shutil.rmtree(upper / "etc", ignore_errors=True)  # the lent files, and pip's marks
        return _layer(upper, work / f"{name}.tar")


def _inference_layer(work: Path) -> Path:
    rootfs = work / "inference-rootfs"
    (rootfs / "srv" / "inference").mkdir(parents=True)
    shutil.copy(HERE / "inference_server.py", rootfs / "srv" / "inference" / "server.py")
    return _layer(rootfs, work / "inference.tar")


# ------------------------------------------------------------------ archives


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _descriptor(media_type: str, digest: str, size: int) -> dict[str, object]:
    return {"mediaType": media_type, "digest": f"sha256:{digest}", "size": size}


def _blob(blobs: dict[str, bytes | Path], media_type: str, data: bytes) -> dict[str, object]:
    digest = hashlib.sha256(data).hexdigest()
    blobs[digest] = data
    return _descriptor(media_type, digest, len(data))


def _manifest(image: Image, blobs: dict[str, bytes | Path]) -> dict[str, object]:
    """`image`'s config and manifest added to `blobs` (its layers too): its index entry."""
    layers = [(_sha256(path), path) for path in image.layers]
    blobs.update(layers)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "config": {"Env": list(image.env), "Cmd": list(image.command), "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [f"sha256:{d}" for d, _ in layers]},
    }
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": _blob(
            blobs, "application/vnd.oci.image.config.v1+json", json.dumps(config).encode()
        ),
        "layers": [
            _descriptor("application/vnd.oci.image.layer.v1.tar", d, p.stat().st_size)
            for d, p in layers
        ],
    }
    entry = _blob(
        blobs, "application/vnd.oci.image.manifest.v1+json", json.dumps(manifest).encode()
    )
    entry["annotations"] = {
        "io.containerd.image.name": image.name,
        "org.opencontainers.image.ref.name": image.name.rsplit(":", 1)[1],
    }
    return entry


def _archive(images: list[Image], into: Path) -> Path:
    """`images` as one OCI image layout in a tar, each named for `ctr images import`: a layer
    that several images share is in it once."""
    blobs: dict[str, bytes | Path] = {}
    index = {"schemaVersion": 2, "manifests": [_manifest(image, blobs) for image in images]}
    part = into.with_suffix(".part")
    with tarfile.open(part, "w") as archive:
        _add_bytes(archive, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
        _add_bytes(archive, "index.json", json.dumps(index).encode())
        for digest, blob in blobs.items():
            if isinstance(blob, Path):
                archive.add(blob, f"blobs/sha256/{digest}")
            else:
                _add_bytes(archive, f"blobs/sha256/{digest}", blob)
    part.rename(into)
    return into


def _cached_layer(name: str, make: Callable[[Path], Path], work: Path) -> Path:
    """The layer `name` from the cache, made (by `make(work)`) and kept there when missing: a
    build that fails half-way starts again from the layers it had made."""
    kept = cache_dir() / "layers" / f"{name}.tar"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(make(work), kept.with_suffix(".part"))
        kept.with_suffix(".part").rename(kept)
    return kept


def _base_rootfs(work: Path, base_layer: Path) -> Path:
    """The base layer's tree (for the layers built on it)."""
    rootfs = work / "debian"
    if not rootfs.exists():
        rootfs.mkdir()
        _run("tar", "--numeric-owner", "-C", str(rootfs), "-xf", str(base_layer))
    return rootfs


def build() -> Path:
    """The archive of every image, and the containerd root holding them, in the cache (built
    unless already there)."""
    if built():
        return archive()
    if archive().exists():
        _preload(containerd_root())
        return archive()
    missing = missing_tools()
    if missing:
        raise ImageError(f"building the images needs {', '.join(missing)} (apt-get install)")
    target = cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".build-", dir=target) as scratch:
        work = Path(scratch)
        base = _cached_layer("base", lambda w: _layer(_debian_rootfs(w), w / "base.tar"), work)
        jupyter = _cached_layer("jupyter", lambda w: _jupyter_layer(_base_rootfs(w, base), w), work)
        jax = _cached_layer("jax", lambda w: _jax_layer(_base_rootfs(w, base), w), work)
        python = ("python3",)
        images = [
            Image(PAUSE, (_cached_layer("pause", _pause_layer, work),), ("/pause",), env=()),
            Image(PYTHON, (base,), python),
            Image(
                INFERENCE,
                (base, _cached_layer("inference", _inference_layer, work)),
                (*python, "/srv/inference/server.py"),
            ),
            Image(NOTEBOOK, (base, jupyter), ("jupyter-lab",)),
            Image(JAX_PYTHON, (base, jax), python),
        ]
        measured = {image.name: sum(p.stat().st_size for p in image.layers) for image in images}
        (target / "sizes.json").write_text(json.dumps(measured, indent=2))
        _archive(images, archive())
    shutil.rmtree(target / "layers")  # all in the archive now
    _preload(containerd_root())
    return archive()


def _preload(root: Path) -> None:
    """`root` as a containerd root with the archive imported (content and unpacked layers)."""
    shutil.rmtree(root, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix=".state-", dir=cache_dir()) as scratch:
        state = Path(scratch)
        socket = state / "containerd.sock"
        config = state / "config.toml"
        config.write_text(
            f'version = 2\nroot = "{root}"\nstate = "{state / "state"}"\n'
            'disabled_plugins = ["io.containerd.grpc.v1.cri"]\n'
            f'[grpc]\n  address = "{socket}"\n[ttrpc]\n  address = "{socket}.ttrpc"\n'
        )
        with (state / "containerd.log").open("w") as log:
            daemon = subprocess.Popen(
                ["containerd", "--config", str(config)], stdout=log, stderr=log
            )
        try:
            _wait_for(socket, daemon)
            _run("ctr", "-a", str(socket), "-n", NAMESPACE, "images", "import", str(archive()))
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    (root / "ready").touch()


def _wait_for(socket: Path, daemon: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not socket.exists():
        if daemon.poll() is not None or time.monotonic() > deadline:
            raise ImageError(f"containerd did not start to import the images (its socket {socket})")
        time.sleep(0.1)


def copy_root(into: Path) -> None:
    """A containerd root for one node, from `containerd_root()`: the immutable files (blobs,
    unpacked layers) hard-linked, the databases copied."""
    source = containerd_root()
    into.parent.mkdir(parents=True, exist_ok=True)
    _run("cp", "-a", "--link", str(source), str(into))
    for database in source.rglob("*.db"):
        copy = into / database.relative_to(source)
        copy.unlink()
        shutil.copy2(database, copy)


def sizes() -> dict[str, int]:
    """Image name -> bytes of its layers (uncompressed), as the last build measured them."""
    path = cache_dir() / "sizes.json"
    found: dict[str, int] = json.loads(path.read_text()) if path.exists() else {}
    return found
