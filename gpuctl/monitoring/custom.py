"""A job's own values (loss, throughput, progress, ...): the rules for pushing them, the relay to
a Prometheus Pushgateway, and reading them back from the Prometheus that scrapes it.

A job pushes named numbers; each becomes the gauge `gpuctl_job_<name>` in the Pushgateway group
job=<job name>, namespace=<its namespace>, pushed with POST semantics (a push replaces the
values of the names it carries and keeps the others: a job may push its loss and its progress
in separate calls). Prometheus scrapes the Pushgateway with `honor_labels: true`, so the series
keep those two labels and gpuctl finds a job's series by them. Deleting the job deletes its
group. Data only: nothing here prints.
"""

from __future__ import annotations

import math
import os
import re
import urllib.error
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from gpuctl import constants as c
from gpuctl.errors import GpuctlError
from gpuctl.monitoring.prometheus import Prometheus
from gpuctl.times import rfc3339

# A Prometheus metric name without `:` (kept for recording rules), at most 64 characters.
NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
MAX_NAMES: Final = 32  # names in one push
MAX_BODY: Final = 16 * 1024  # bytes of one push's body
PROGRESS: Final = "progress"  # percent done, 0 to 100
LOSS: Final = "loss"
# What `throughput` is: the first of these names the job reports (per second).
THROUGHPUT_NAMES: Final = ("throughput", "tokensPerSecond", "samplesPerSecond")
PUSH_TIMEOUT: Final = 5.0  # seconds for one request to the Pushgateway
HELP: Final = "a value the job pushed through gpuctl (POST /api/v1/metrics/custom)"
ENV_VAR: Final = "GPUCTL_PUSHGATEWAY_URL"


class InvalidValues(GpuctlError):
    """A push the rules refuse; `field` is where (`metrics.loss`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class PushgatewayUnreachable(GpuctlError):
    """The Pushgateway did not answer (down, wrong address, timeout)."""


class PushgatewayRefused(GpuctlError):
    """The Pushgateway answered with an error."""


def checked(values: Mapping[str, Any]) -> dict[str, float]:
    """The values of one push, as floats, or InvalidValues for the first that breaks a rule:
    1 to MAX_NAMES names, each a metric name (NAME), each value a finite number (not a
    boolean), `progress` within 0..100."""
    if not values:
        raise InvalidValues("metrics", 'give at least one value, e.g. {"progress": 42.5}')
    if len(values) > MAX_NAMES:
        raise InvalidValues("metrics", f"{len(values)} names; at most {MAX_NAMES} in one push")
    result = {}
    for name, value in values.items():
        where = f"metrics.{name}"
        if not NAME.fullmatch(name):
            raise InvalidValues(
                where,
                f"{name!r} is not a metric name: letters, digits and '_', not starting with a "
                "digit, at most 64 characters (e.g. tokensPerSecond)",
            )
        number = _finite(where, value)
        if name == PROGRESS and not 0 <= number <= 100:
            raise InvalidValues(where, f"{number:g} is not a percentage (0 to 100)")
        result[name] = number
    return result


def _finite(where: str, value: Any) -> float:
    """`value` as a float: a JSON number (not a boolean) that a float holds, not NaN or ±inf."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidValues(where, f"{value!r} is not a number")
    try:
        number = float(value)
    except OverflowError:  # an integer of 400 digits
        beyond = "an integer beyond a float's range is not a finite number"
        raise InvalidValues(where, beyond) from None
    if not math.isfinite(number):
        raise InvalidValues(where, f"{value!r} is not a finite number")
    return number


def configured(context: str | None) -> Pushgateway | None:
    """The Pushgateway the CLI uses (as `gpuctl serve` without --pushgateway-url):
    $GPUCTL_PUSHGATEWAY_URL, else gpuctl's config file for kubeconfig context `context`, else
    its default; None when none names one."""
    from gpuctl import settings

    url = os.environ.get(ENV_VAR) or settings.load().pushgateway_url_for(context)
    return Pushgateway(url.rstrip("/")) if url else None


def series_name(name: str) -> str:
    return c.CUSTOM_METRIC_PREFIX + name


def _grouping(namespace: str) -> dict[str, str]:
    return {"namespace": namespace}


@dataclass(frozen=True)
class Pushgateway:
    url: str

    def push(self, namespace: str, job: str, values: Mapping[str, float]) -> None:
        """Set the job's values (POST: its other names keep theirs)."""
        from prometheus_client import CollectorRegistry, Gauge, pushadd_to_gateway

        registry = CollectorRegistry()
        for name, value in values.items():
            Gauge(series_name(name), HELP, registry=registry).set(value)
        self._call(
            pushadd_to_gateway,
            self.url,
            job=job,
            registry=registry,
            grouping_key=_grouping(namespace),
            timeout=PUSH_TIMEOUT,
        )

    def forget(self, namespace: str, job: str) -> None:
        """Delete the job's group (all its values); nothing happens when there is none."""
        from prometheus_client import delete_from_gateway

        self._call(
            delete_from_gateway,
            self.url,
            job=job,
            grouping_key=_grouping(namespace),
            timeout=PUSH_TIMEOUT,
        )

    def _call(self, function: Any, *args: Any, **kwargs: Any) -> None:
        try:
            function(*args, **kwargs)
        except urllib.error.HTTPError as exc:
            raise PushgatewayRefused(
                f"the Pushgateway at {self.url} answered {exc.code}: {_first_line(exc)}"
            ) from None
        except (OSError, ValueError) as exc:  # URLError, refused, timeout; a malformed URL
            reason = getattr(exc, "reason", exc)
            raise PushgatewayUnreachable(
                f"the Pushgateway at {self.url} is unreachable: {reason}"
            ) from None


def _first_line(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read().decode("utf-8", "replace")
    except OSError:
        text = ""
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else str(exc.reason)


# ---------------------------------------------------------------------- reading them back


def _escape(value: str) -> str:
    """A label value inside a PromQL double-quoted string."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _job_selector(namespace: str, job: str, name: str | None = None) -> str:
    metric = (
        f'__name__="{series_name(name)}"' if name else f'__name__=~"{c.CUSTOM_METRIC_PREFIX}.+"'
    )
    return f'{{{metric},namespace="{_escape(namespace)}",job="{_escape(job)}"}}'


def _timestamp(seconds: float) -> str:
    return rfc3339(seconds)


def job_series(
    prometheus: Prometheus, namespace: str, job: str, start: float, end: float, step: float
) -> dict[str, list[dict[str, Any]]]:
    """The job's pushed values over [start, end], per name (without the prefix), as
    [{"timestamp": RFC 3339 UTC, "value": number}], oldest first."""
    promql = f"max by (__name__) ({_job_selector(namespace, job)})"
    result: dict[str, list[dict[str, Any]]] = {}
    for series in prometheus.query_range(promql, start, end, step):
        name = series.labels.get("__name__", "").removeprefix(c.CUSTOM_METRIC_PREFIX)
        if name:
            result[name] = [{"timestamp": _timestamp(t), "value": v} for t, v in series.points]
    return dict(sorted(result.items()))


def throughput_of(series: Mapping[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """`throughput`: the series of the first of THROUGHPUT_NAMES the job reports; [] if none."""
    for name in THROUGHPUT_NAMES:
        if series.get(name):
            return list(series[name])
    return []


THROUGHPUT_UNITS: Final = {
    "throughput": "/s",
    "tokensPerSecond": " tokens/s",
    "samplesPerSecond": " samples/s",
}


def throughput_now(prometheus: Prometheus, namespace: str, job: str) -> str | None:
    """The job's throughput now, as `GET /jobs/{id}` shows it (`5100 tokens/s`): the last
    value of the first of THROUGHPUT_NAMES it pushed; None when it pushed none."""
    names = "|".join(series_name(name) for name in THROUGHPUT_NAMES)
    selector = f'{{__name__=~"{names}",namespace="{_escape(namespace)}",job="{_escape(job)}"}}'
    found = {
        sample.labels.get("__name__", "").removeprefix(c.CUSTOM_METRIC_PREFIX): sample.value
        for sample in prometheus.query(f"max by (__name__) ({selector})")
    }
    for name in THROUGHPUT_NAMES:
        if name in found:
            return f"{found[name]:g}{THROUGHPUT_UNITS[name]}"
    return None


def drawing_order(series: Mapping[str, Any]) -> list[str]:
    """The names of a job's series as `describe job` lists them: loss, the throughput names,
    progress, then the others alphabetically."""
    first = [name for name in (LOSS, *THROUGHPUT_NAMES, PROGRESS) if name in series]
    return first + sorted(name for name in series if name not in first)


def progress_now(prometheus: Prometheus, namespace: str | None) -> dict[tuple[str, str], float]:
    """(namespace, job) -> the progress (%) each job reported last, for the jobs of `namespace`
    (every namespace when None) that report one."""
    where = f'{{namespace="{_escape(namespace)}"}}' if namespace else ""
    promql = f"max by (namespace, job) ({series_name(PROGRESS)}{where})"
    return {
        (sample.labels.get("namespace", ""), sample.labels.get("job", "")): sample.value
        for sample in prometheus.query(promql)
    }


def progress_cells(
    listed: Sequence[tuple[str, str]], reported: Mapping[tuple[str, str], float]
) -> list[str] | None:
    """PROGRESS of each listed (namespace, job): `42.5%`, `-` for a job that reports none;
    None (no column at all) when none of them reports one."""
    if not any(key in reported for key in listed):
        return None
    return [_percent(reported[key]) if key in reported else "-" for key in listed]


def _percent(value: float) -> str:
    return f"{value:.0f}%" if float(value).is_integer() else f"{value:.1f}%"
