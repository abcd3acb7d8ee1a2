import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Client, Filters, JobItem } from "../api";
import { age, gpusShown, statusLabel } from "../format";
import { figure, sparklinePath } from "../series";
import { follow } from "../router";
import { visibleRows } from "../virtual";

export const KINDS = ["training", "inference", "notebook", "compute"];
export const STATUSES = [
  "pending",
  "queued",
  "running",
  "partially-running",
  "paused",
  "succeeded",
  "failed",
  "terminating",
  "partial",
];
const POLL_MS = 5000;
const AGE_TICK_MS = 60_000;
const UTILISATION_POLL_MS = 15_000; // the sparklines: one request for every job, this often
const SPARK_WIDTH = 80; // px
const SPARK_HEIGHT = 20; // px
const ROW_HEIGHT = 36; // px: the CSS gives every row this height
const VIEWPORT = 600; // px: the table's scroll box

function filtersFromUrl(): Filters {
  const query = new URLSearchParams(location.search);
  return {
    kind: query.get("kind") ?? "",
    pool: query.get("pool") ?? "",
    status: query.get("status") ?? "",
  };
}

function showFilters(filters: Filters): void {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
  const search = query.toString();
  history.replaceState(null, "", search ? `/?${search}` : "/");
}

/** The caller's jobs (an admin: everyone's), asked for again every few seconds: the rows
 * change in place, the page is never reloaded. */
export function JobsPage(props: { client: Client; admin: boolean; pollMs?: number }) {
  const [filters, setFilters] = useState<Filters>(filtersFromUrl);
  const [jobs, setJobs] = useState<JobItem[] | null>(null);
  const [pools, setPools] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const utilisation = useUtilisation(props.client);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let first = true; // a new filter choice draws its rows even when the server says 304
    async function poll() {
      try {
        const [found, changed] = await props.client.jobsIfChanged(filters);
        if (stopped) return;
        if (changed || first) {
          // 304 for every page: the rows stay as they are, nothing is drawn again
          setJobs(found);
          setPools((known) => mergePools(known, found));
          setNow(Date.now());
        }
        first = false;
        setProblem(null);
      } catch (failure) {
        if (!stopped) setProblem(failure instanceof Error ? failure.message : String(failure));
      }
      // the ages tick by the minute: unchanged rows are drawn again only that often
      const clock = Date.now();
      setNow((shown) => (clock - shown >= AGE_TICK_MS ? clock : shown));
      if (!stopped) timer = setTimeout(poll, props.pollMs ?? POLL_MS);
    }
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.client, filters.kind, filters.pool, filters.status]);

  function choose(key: keyof Filters, value: string) {
    const next = { ...filters, [key]: value };
    showFilters(next);
    setFilters(next);
  }

  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">{props.admin ? "All jobs" : "Your jobs"}</h1>
      <form class="filters" aria-label="Filter jobs" onSubmit={(e) => e.preventDefault()}>
        <Choice id="kind" label="Kind" value={filters.kind ?? ""} options={KINDS} onChange={choose} />
        <Choice id="pool" label="Pool" value={filters.pool ?? ""} options={pools} onChange={choose} />
        <Choice id="status" label="Status" value={filters.status ?? ""} options={STATUSES} onChange={choose} />
      </form>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {jobs === null ? <p>Loading jobs…</p> : <JobTable jobs={jobs} now={now} utilisation={utilisation} />}
      {jobs !== null && jobs.length > 0 && utilisation?.source === null && (
        <p class="hint" data-testid="gpu-use-note">
          GPU use: no GPU metrics, Prometheus is not configured ({utilisation.message}).
        </p>
      )}
    </section>
  );
}

/** The GPU use column's data: each job's recent values, where they come from (null: no
 * Prometheus), the API's message, and why they could not be read (null: they were). */
export interface Utilisation {
  series: Map<string, number[]>;
  source: string | null;
  message: string;
  problem: string | null;
}

/** Every visible job's recent GPU utilisation, asked for in one request every 15 s; null
 * until the first answer. */
function useUtilisation(client: Client): Utilisation | null {
  const [found, setFound] = useState<Utilisation | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    async function poll() {
      try {
        const answer = await client.jobsUtilisation();
        const series = new Map(answer.items.map((item) => [item.jobId, item.gpuUtilization]));
        if (!stopped)
          setFound((shown) =>
            shown && shown.source === answer.source && !shown.problem && sameSeries(shown.series, series)
              ? shown
              : { series, source: answer.source, message: answer.message, problem: null },
          );
      } catch (failure) {
        // the sparklines are extra: the jobs list reports the API's problems; the column says why
        const problem = failure instanceof Error ? failure.message : String(failure);
        if (!stopped) setFound((shown) => ({ series: new Map(), source: shown?.source ?? null, message: "", problem }));
      }
      if (!stopped) timer = setTimeout(poll, UTILISATION_POLL_MS);
    }
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [client]);
  return found;
}

function sameSeries(a: Map<string, number[]>, b: Map<string, number[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, values] of a) {
    const other = b.get(key);
    if (!other || other.length !== values.length || other.some((value, i) => value !== values[i])) return false;
  }
  return true;
}

function mergePools(known: string[], jobs: JobItem[]): string[] {
  const all = new Set(known);
  for (const job of jobs) all.add(job.pool);
  return [...all].sort();
}

function Choice(props: {
  id: keyof Filters;
  label: string;
  value: string;
  options: string[];
  onChange: (key: keyof Filters, value: string) => void;
}) {
  const options = props.value && !props.options.includes(props.value) ? [...props.options, props.value] : props.options;
  return (
    <label class="choice">
      {props.label}
      <select
        name={props.id}
        value={props.value}
        onChange={(e) => props.onChange(props.id, (e.target as HTMLSelectElement).value)}
      >
        <option value="">any</option>
        {options.map((option) => (
          <option value={option} key={option}>
            {props.id === "status" ? statusLabel(option) : option}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Why a job's GPU use cell has no sparkline, in words (its title and what a screen reader
 * reads). */
export function noUseReason(job: JobItem, utilisation: Utilisation | null | undefined): string {
  if (!utilisation) return "no GPU metrics read yet";
  if (utilisation.problem) return `no GPU metrics: they could not be read (${utilisation.problem})`;
  if (utilisation.source === null) return "no GPU metrics: Prometheus is not configured";
  if (job.gpu === 0 && !job.gpuShare) return "no GPU metrics: the job uses no GPU";
  if (job.status !== "running" && job.status !== "partially-running") {
    return "no GPU metrics: the job is not running";
  }
  return "no samples yet: Prometheus has no GPU figure for its pods in the last 30 minutes";
}

export function JobTable(props: { jobs: JobItem[]; now: number; utilisation?: Utilisation | null }) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const shown = useMemo(
    () => visibleRows(scrollTop, VIEWPORT, ROW_HEIGHT, props.jobs.length),
    [scrollTop, props.jobs.length],
  );
  if (props.jobs.length === 0) return <p data-testid="no-jobs">No jobs match.</p>;
  return (
    <div class="table-box" ref={box} onScroll={() => setScrollTop(box.current?.scrollTop ?? 0)}>
      <table aria-rowcount={props.jobs.length + 1} data-testid="jobs">
        <caption class="visually-hidden">
          {props.jobs.length} jobs, newest first
        </caption>
        <thead>
          <tr aria-rowindex={1}>
            {["Job", "Kind", "Pool", "Status", "Ready", "GPUs", "GPU use", "Age"].map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.above > 0 && <tr aria-hidden="true" class="spacer" style={{ height: `${shown.above}px` }} />}
          {props.jobs.slice(shown.first, shown.last).map((job, index) => (
            <JobRow
              job={job}
              now={props.now}
              rowIndex={shown.first + index + 2}
              utilisation={props.utilisation?.series.get(job.jobId)}
              noUse={noUseReason(job, props.utilisation)}
              key={job.jobId}
            />
          ))}
          {shown.below > 0 && <tr aria-hidden="true" class="spacer" style={{ height: `${shown.below}px` }} />}
        </tbody>
      </table>
    </div>
  );
}

function JobRow(props: { job: JobItem; now: number; rowIndex: number; utilisation?: number[]; noUse: string }) {
  const { job } = props;
  const path = `/jobs/${encodeURIComponent(job.jobId)}`;
  return (
    <tr aria-rowindex={props.rowIndex} data-job={job.jobId}>
      <td>
        <a href={path} onClick={(e) => follow(e, path)}>
          {job.jobId}
        </a>
      </td>
      <td>{job.kind}</td>
      <td>{job.pool}</td>
      <td>
        <span class={`status status-${job.status}`}>{statusLabel(job.status)}</span>
      </td>
      <td>{job.ready}</td>
      <td>{gpusShown(job)}</td>
      <td>
        {props.utilisation && props.utilisation.length > 0 ? (
          <Sparkline values={props.utilisation} />
        ) : (
          <span title={props.noUse} data-testid="no-gpu-use">
            <span aria-hidden="true">–</span>
            <span class="visually-hidden">{props.noUse}</span>
          </span>
        )}
      </td>
      <td>
        <time dateTime={job.createdAt ?? undefined}>{age(job.createdAt, props.now)}</time>
      </td>
    </tr>
  );
}

/** A job's recent GPU utilisation as a tiny inline SVG (no style attribute: the CSP allows
 * none), its latest value beside it; the picture is labelled in words. */
export function Sparkline(props: { values: number[] }) {
  const latest = props.values[props.values.length - 1];
  const label = `GPU utilisation, last 30 minutes: now ${figure(latest)} %, peak ${figure(Math.max(...props.values))} %`;
  return (
    <span class="spark" data-testid="sparkline">
      <svg width={SPARK_WIDTH} height={SPARK_HEIGHT} viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`} role="img" aria-label={label}>
        <path d={sparklinePath(props.values, SPARK_WIDTH, SPARK_HEIGHT)} />
      </svg>
      <span aria-hidden="true">{figure(latest)}%</span>
    </span>
  );
}
