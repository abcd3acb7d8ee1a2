"""Every label key and prefix gpuctl writes or reads is spelled once, in gpuctl/constants.py:
no Python string elsewhere in gpuctl (the sandbox aside: it plays the cluster) and no template
line spells one; templates get them through the render context."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from gpuctl import constants as c

ROOT = Path(__file__).resolve().parents[2]
# A bare label key or prefix, or the GPUWorkload API group (help text and docstrings, with
# spaces, do not match; nor does the name gpu-orchestrator without its slash).
LABEL_KEY = re.compile(
    r"^((gpuctl\.)?(runwhere\.ai|g8s\.host|gpu\.warp\.dev|gpu-orchestrator|kubernetes\.io)"
    r"/[A-Za-z0-9._-]*|gpu\.warp\.dev)$"
)
SPELLED_IN_TEMPLATE = re.compile(
    r"(runwhere\.ai|g8s\.host|gpu\.warp\.dev|gpu-orchestrator|kubernetes\.io)/"
)


def _label_strings(path: Path) -> list[str]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if token.type != tokenize.STRING:
            continue
        text = token.string.strip("rbfRBF").strip("'\"")
        if LABEL_KEY.match(text):
            found.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {text}")
    return found


def test_no_label_key_is_spelled_outside_constants() -> None:
    sources = sorted((ROOT / "gpuctl").rglob("*.py"))
    spelled = [
        hit
        for path in sources
        if path.name != "constants.py" and "sandbox" not in path.relative_to(ROOT).parts
        for hit in _label_strings(path)
    ]
    assert spelled == []


def test_no_template_spells_a_label_key() -> None:
    spelled = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "templates").rglob("*.j2"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if not line.lstrip().startswith(("#", "{#")) and SPELLED_IN_TEMPLATE.search(line)
    ]
    assert spelled == []


def test_keys_are_built_from_their_prefixes() -> None:
    assert c.Labels.WORKLOAD == "gpu.warp.dev/workload"
    assert c.WORKLOAD_NAME_ANNOTATION == "gpu.warp.dev/workload-name"
    assert c.Labels.CHEAP_NODE == "gpu-orchestrator/cheap-node"
    assert c.Labels.GPU_TYPE_USER == "g8s.host/gpu-type"
    assert c.RENDER_HASH_ANNOTATION == "gpuctl.runwhere.ai/render-hash"
    assert c.Labels.POOL == "runwhere.ai/pool"
