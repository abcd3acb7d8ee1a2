"""gpuctl's own config file: settings per kubeconfig context (where Prometheus is, and the
Pushgateway that `gpuctl serve` relays the jobs' own metrics to).

It lives at ${XDG_CONFIG_HOME:-~/.config}/gpuctl/config.yaml; a missing file is no settings:

    prometheusUrl: http://prometheus.monitoring:9090   # for every context without its own
    pushgatewayUrl: http://pushgateway.monitoring:9091 # the same, for `gpuctl serve`
    contexts:
      prod:                                            # a kubeconfig context's name
        prometheusUrl: https://prometheus.prod.example.com

A bad file is a SpecError with one line: FILE:LINE:COLUMN: field.path: what is wrong.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

import yaml

from gpuctl.errors import SpecError, UsageError
from gpuctl.spec.document import Document, Path_, load_text, read_text

PROMETHEUS_URL = "prometheusUrl"
PUSHGATEWAY_URL = "pushgatewayUrl"
CONTEXTS = "contexts"
_TOP_FIELDS = [PROMETHEUS_URL, PUSHGATEWAY_URL, CONTEXTS]
_CONTEXT_FIELDS = [PROMETHEUS_URL, PUSHGATEWAY_URL]
_URL_FIELDS = (PROMETHEUS_URL, PUSHGATEWAY_URL)
_URL = re.compile(r"^https?://[^\s/]+")
_ONLY_COMMENTS = re.compile(r"\s*(#[^\n]*\s*)*")


def config_path() -> Path:
    """${XDG_CONFIG_HOME:-~/.config}/gpuctl/config.yaml."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "gpuctl" / "config.yaml"


@dataclass(frozen=True)
class Settings:
    prometheus_url: str | None = None  # the default, for contexts without their own
    context_urls: dict[str, str] = field(default_factory=dict)
    pushgateway_url: str | None = None  # the default, for contexts without their own
    context_pushgateway_urls: dict[str, str] = field(default_factory=dict)

    def prometheus_url_for(self, context: str | None) -> str | None:
        """The context's own Prometheus, else the file's default, else None."""
        if context is not None and context in self.context_urls:
            return self.context_urls[context]
        return self.prometheus_url

    def pushgateway_url_for(self, context: str | None) -> str | None:
        """The context's own Pushgateway, else the file's default, else None."""
        if context is not None and context in self.context_pushgateway_urls:
            return self.context_pushgateway_urls[context]
        return self.pushgateway_url


def load(path: Path | None = None) -> Settings:
    """The settings in the config file (`path`, else config_path()); none when it is missing."""
    data = _read(path or config_path())
    contexts = data.get(CONTEXTS) or {}
    return Settings(
        data.get(PROMETHEUS_URL),
        {n: e[PROMETHEUS_URL] for n, e in contexts.items() if e and PROMETHEUS_URL in e},
        data.get(PUSHGATEWAY_URL),
        {n: e[PUSHGATEWAY_URL] for n, e in contexts.items() if e and PUSHGATEWAY_URL in e},
    )


def set_prometheus_url(url: str, context: str | None, path: Path | None = None) -> Path:
    """Write `url` as `context`'s Prometheus (the default when None); the file written.
    Its other settings stay; its comments do not (the file is written anew, as kubectl does
    with a kubeconfig)."""
    if not _URL.match(url):
        raise UsageError(f"{url!r} is not an http(s) URL (e.g. http://prometheus.monitoring:9090)")
    path = path or config_path()
    data = _read(path)
    if context is None:
        data[PROMETHEUS_URL] = url
    else:  # `contexts:` and `NAME:` may be there and empty
        contexts = data.get(CONTEXTS) or {}
        contexts[context] = {**(contexts.get(context) or {}), PROMETHEUS_URL: url}
        data[CONTEXTS] = contexts
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, default_flow_style=False))
    return path


def _read(path: Path) -> dict[str, Any]:
    """The file's data, checked; {} when there is no file or it holds only comments."""
    if not path.exists():
        return {}
    text = read_text(str(path))
    if _ONLY_COMMENTS.fullmatch(text):
        return {}
    documents = load_text(str(path), text)
    document = documents[0]
    if len(documents) > 1:
        raise SpecError([documents[1].problem((), "one YAML document expected, found more")])
    _check(document)
    return dict(document.data)


def _check(document: Document) -> None:
    data = document.data
    if not isinstance(data, dict):
        raise SpecError(
            [document.problem((), "expected a mapping (prometheusUrl, pushgatewayUrl, contexts)")]
        )
    _check_fields(document, (), data, _TOP_FIELDS)
    contexts = data.get(CONTEXTS)
    if contexts is None:
        return
    if not isinstance(contexts, dict):
        _fail(document, (CONTEXTS,), "expected a mapping of kubeconfig context names")
    for name, entry in contexts.items():
        if not isinstance(name, str):  # e.g. 2024, which the path would show as [2024]
            problem = document.problem(
                (CONTEXTS, name), "a context's name is text: quote it", key=True
            )
            raise SpecError([replace(problem, path=f"{CONTEXTS}.{name}")])
        if entry is None:
            continue
        if not isinstance(entry, dict):
            _fail(document, (CONTEXTS, name), f"expected a mapping ({', '.join(_URL_FIELDS)})")
        _check_fields(document, (CONTEXTS, name), entry, _CONTEXT_FIELDS)


def _check_fields(document: Document, at: Path_, data: dict[str, Any], known: list[str]) -> None:
    from gpuctl.spec.schema import did_you_mean

    for key, value in data.items():
        if key not in known:
            where = (*at, key)
            raise SpecError(
                [document.problem(where, "unknown field", did_you_mean(str(key), known), key=True)]
            )
        if key in _URL_FIELDS and not (isinstance(value, str) and _URL.match(value)):
            _fail(document, (*at, key), f"expected an http(s) URL, got {value!r}")


def _fail(document: Document, path: Path_, message: str) -> NoReturn:
    hints = {
        PROMETHEUS_URL: "e.g. http://prometheus.monitoring:9090",
        PUSHGATEWAY_URL: "e.g. http://pushgateway.monitoring:9091",
    }
    hint = hints.get(str(path[-1]), "")
    raise SpecError([document.problem(path, message, hint)])
