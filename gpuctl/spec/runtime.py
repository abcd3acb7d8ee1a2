"""What multi-GPU training needs on a real node, derived from a checked spec (data only).

- Shared memory: a container's /dev/shm is 64 MiB by default, too little for PyTorch DataLoader
  workers and NCCL. Every pod that requests GPUs gets a memory-backed /dev/shm sized half its
  memory (the pages count against the pod's memory limit, so it can never take more than that).
- DeepSpeed: a training command or argument `--deepspeed <file>.json` that no workdir provides
  gets a base config: ZeRO-3 with the optimizer offloaded to CPU when the file's name says zero3
  or z3, ZeRO-2 otherwise. The config is a ConfigMap mounted read-only; a relative path is
  rewritten to the mounted file, an absolute one is mounted where it points.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gpuctl.spec import quantity

DEEPSPEED_FLAG = "--deepspeed"
DEEPSPEED_DIR = "/etc/gpuctl/deepspeed"
_ZERO3_NAME = re.compile(r"zero[_-]?3|(?:^|[^a-z0-9])z3(?:[^a-z0-9]|$)")

# Base configs for the Hugging Face Trainer's DeepSpeed integration (LLaMA-Factory, transformers
# scripts): "auto" values are filled in from the Trainer's own arguments (batch size, gradient
# accumulation, clipping, fp16/bf16), so the user adjusts those on the command line only.
_COMMON: dict[str, Any] = {
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
    "gradient_clipping": "auto",
    "zero_allow_untested_optimizer": True,
    "fp16": {
        "enabled": "auto",
        "loss_scale": 0,
        "loss_scale_window": 1000,
        "initial_scale_power": 16,
        "hysteresis": 2,
        "min_loss_scale": 1,
    },
    "bf16": {"enabled": "auto"},
}
ZERO2: dict[str, Any] = {
    **_COMMON,
    "zero_optimization": {
        "stage": 2,
        "allgather_partitions": True,
        "allgather_bucket_size": 500_000_000,
        "overlap_comm": True,
        "reduce_scatter": True,
        "reduce_bucket_size": 500_000_000,
        "contiguous_gradients": True,
    },
}
ZERO3: dict[str, Any] = {
    **_COMMON,
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": {"device": "cpu", "pin_memory": True},
        "overlap_comm": True,
        "contiguous_gradients": True,
        "sub_group_size": 1_000_000_000,
        "reduce_bucket_size": "auto",
        "stage3_prefetch_bucket_size": "auto",
        "stage3_param_persistence_threshold": "auto",
        "stage3_max_live_parameters": 1_000_000_000,
        "stage3_max_reuse_distance": 1_000_000_000,
        "stage3_gather_16bit_weights_on_model_save": True,
    },
}

# Largest first: Ei, Pi, Ti, Gi, Mi, Ki.
_BINARY_SUFFIXES = [(s, 2 ** (10 * p)) for p, s in enumerate("KMGTPE", 1)][::-1]


def shm_size(memory: str | int | float) -> str:
    """The /dev/shm size limit of a pod with `memory`: half of it, as a Kubernetes quantity."""
    half = int(quantity.parse(memory) / Decimal(2))
    for suffix, size in _BINARY_SUFFIXES:
        if half >= size and half % size == 0:
            return f"{half // size}{suffix}i"
    return str(half)


def base_config(path: str) -> dict[str, Any]:
    """The base DeepSpeed config for a file named `path`: ZeRO-3 for zero3/z3 names, else ZeRO-2."""
    name = posixpath.basename(path).lower()
    return ZERO3 if _ZERO3_NAME.search(name) else ZERO2


@dataclass(frozen=True)
class DeepSpeedFile:
    key: str  # the ConfigMap data key
    mount_path: str  # where the container sees it
    content: str  # the JSON text


@dataclass(frozen=True)
class DeepSpeed:
    """The supplied configs and the command and args with relative paths pointed at them."""

    files: tuple[DeepSpeedFile, ...]
    command: list[str]
    args: list[str]


def _provided(path: str, workdirs: list[str]) -> bool:
    """True when a user workdir puts the file in the container (only absolute paths can tell)."""
    return path.startswith("/") and any(
        path == w or path.startswith(w.rstrip("/") + "/") for w in workdirs
    )


def deepspeed(command: list[str], args: list[str], workdirs: list[str]) -> DeepSpeed:
    """The `--deepspeed X.json` files no workdir provides, and the words rewritten to find them."""
    files: dict[str, DeepSpeedFile] = {}

    def supply(path: str) -> str:
        """The path the word should name; records the file to supply."""
        if not path.endswith(".json") or _provided(path, workdirs):
            return path
        key = _key(posixpath.basename(path), path, files)
        mount = path if path.startswith("/") else f"{DEEPSPEED_DIR}/{key}"
        content = json.dumps(base_config(path))
        files.setdefault(path, DeepSpeedFile(key, mount, content))
        return mount

    rewritten = _rewrite(command + args, supply)
    return DeepSpeed(tuple(files.values()), rewritten[: len(command)], rewritten[len(command) :])


def _key(basename: str, path: str, files: dict[str, DeepSpeedFile]) -> str:
    if path in files:
        return files[path].key
    taken = {f.key for f in files.values()}
    return basename if basename not in taken else f"{len(files)}-{basename}"


def _rewrite(words: list[str], supply: Any) -> list[str]:
    """`--deepspeed X` and `--deepspeed=X` with X replaced by supply(X)."""
    result = list(words)
    for index, word in enumerate(words):
        if word == DEEPSPEED_FLAG and index + 1 < len(words):
            result[index + 1] = supply(words[index + 1])
        elif word.startswith(DEEPSPEED_FLAG + "="):
            result[index] = f"{DEEPSPEED_FLAG}={supply(word.split('=', 1)[1])}"
    return result


# A Jupyter server's token on its command line (`--ServerApp.token=…` and its older spellings).
JUPYTER_TOKEN_FLAG = re.compile(r"--(?:NotebookApp|ServerApp|IdentityProvider)\.token=(.*)$")


def jupyter_token(words: list[str]) -> str | None:
    """The token a command line gives its Jupyter server ("" for `--ServerApp.token=`, which
    turns the token off), None when it gives none. Words that hold several (`sh -c "jupyter
    lab --ServerApp.token=x"`) are split as a shell would."""
    for word in shlex.split(" ".join(shlex.quote(w) for w in words)):
        match = JUPYTER_TOKEN_FLAG.match(word)
        if match:
            return match.group(1)
    return None
