// The public REST API (/api/v1), the console's only way to the cluster: whatever it shows,
// a script with the same token can do.
export const API = "/api/v1";

/** An answer of the API in its error shape ({"error", "message", "field"?}). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export interface JobItem {
  jobId: string;
  name: string;
  namespace: string;
  kind: string;
  pool: string;
  status: string;
  ready: string;
  gpu: number;
  gpuShare: string | null; // a gpu-share job's GPU memory in all (e.g. 20Gi), its gpu 0
  gpuType: string | null;
  createdAt: string | null;
  startedAt: string | null;
}

export interface JobList {
  total: number;
  items: JobItem[];
}

/** One pod of a job as `gpuctl get pods` shows it (node null until it is placed). */
export interface PodState {
  name: string;
  status: string;
  ready: string;
  node: string | null;
  restarts: number;
}

export interface JobDetail extends JobItem {
  yamlContent: string | null;
  yamlContentNote?: string | null;
  image: string;
  priority: string;
  why: string;
  access: string;
  k8sResources: { kind: string | null; pods: string[]; podStates?: PodState[]; service: string | null };
}

export interface MetricPoint {
  timestamp: string;
  value: number;
}

/** GET /jobs/{jobId}/metrics: series over time; empty with `source` null without Prometheus. */
export interface JobMetrics {
  gpuUtilization?: MetricPoint[];
  memoryUsage?: MetricPoint[];
  throughput?: MetricPoint[];
  custom?: Record<string, MetricPoint[]>;
  source: string | null;
  message: string;
}

/** GET /metrics/jobs: every visible job's recent GPU utilisation (%), oldest first; without
 * a Prometheus `source` is null and `message` says so. */
export interface JobsUtilisation {
  items: { jobId: string; gpuUtilization: number[] }[];
  source: string | null;
  message: string;
}

/** GET /jobs/{jobId}/manifests: what the job's spec renders to. */
export interface JobManifests {
  jobId: string;
  manifests: { kind: string; name: string; namespace: string | null; yaml: string }[];
  message: string;
}

export interface Caller {
  user: string;
  role: string;
}

export interface Filters {
  kind?: string;
  pool?: string;
  status?: string;
}

/** The failure an answer carries: the API's own message where it sent one. */
export async function failureOf(answer: Response): Promise<ApiFailure> {
  try {
    const body = (await answer.json()) as { error?: unknown; message?: unknown };
    if (typeof body.message === "string") {
      return new ApiFailure(answer.status, String(body.error ?? "Error"), body.message);
    }
  } catch {
    // not the error shape: say what came back
  }
  return new ApiFailure(answer.status, "Error", `the server answered ${answer.status}`);
}

/** The last answer to a GET and its ETag: sent back as If-None-Match, a 304 means "still this". */
interface Remembered {
  tag: string;
  body: unknown;
}
const REMEMBERED_PATHS = 64; // answers kept for If-None-Match (one per filter choice and page)

export class Client {
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    readonly token: string,
    private readonly fetcher: typeof fetch = (input, init) => fetch(input, init),
  ) {}

  /** A GET that sends the ETag of the last answer to the same path: [body, changed]. On 304
   * the body is the remembered one, the very same object, so a page that keeps it draws
   * nothing again. `no-store`: the browser's own cache would turn the 304 into a 200. */
  private async conditional<T>(path: string): Promise<[T, boolean]> {
    const headers = new Headers({ Authorization: `Bearer ${this.token}`, Accept: "application/json" });
    const known = this.remembered.get(path);
    if (known) headers.set("If-None-Match", known.tag);
    const answer = await this.fetcher(`${API}${path}`, { headers, cache: "no-store" });
    if (answer.status === 304 && known) return [known.body as T, false];
    if (!answer.ok) throw await failureOf(answer);
    const body = (await answer.json()) as T;
    const tag = answer.headers.get("ETag");
    this.remembered.delete(path);
    if (tag) {
      if (this.remembered.size >= REMEMBERED_PATHS) this.remembered.clear();
      this.remembered.set(path, { tag, body });
    }
    return [body, true];
  }

  /** A request to the API with the token; a failure throws the API's own message. */
  async call<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${this.token}`);
    headers.set("Accept", "application/json");
    const answer = await this.fetcher(`${API}${path}`, { ...init, headers });
    if (!answer.ok) throw await failureOf(answer);
    return (await answer.json()) as T;
  }

  /** Who the token is (a wrong token: the API's 401 message). */
  async whoAmI(): Promise<Caller> {
    const body = JSON.stringify({ resource: "jobs", action: "get" });
    const headers = { "Content-Type": "application/json" };
    return this.call<Caller>("/auth/check", { method: "POST", body, headers });
  }

  /** Every job the caller may see that matches `filters`, page after page. */
  async jobs(filters: Filters, pageSize = 1000): Promise<JobItem[]> {
    const [items] = await this.jobsIfChanged(filters, pageSize);
    return items;
  }

  /** The jobs and whether any page changed since the last call with these filters (every
   * page 304: nothing to draw again). */
  async jobsIfChanged(filters: Filters, pageSize = 1000): Promise<[JobItem[], boolean]> {
    const items: JobItem[] = [];
    let changed = false;
    for (let page = 1; ; page += 1) {
      const query = jobsQuery(filters, page, pageSize);
      const [answer, fresh] = await this.conditional<JobList>(`/jobs?${query}`);
      changed ||= fresh;
      items.push(...answer.items);
      if (answer.items.length === 0 || items.length >= answer.total) return [items, changed];
    }
  }

  /** One job; unchanged since the last call (304): the same object as then. */
  async job(jobId: string): Promise<JobDetail> {
    const [detail] = await this.conditional<JobDetail>(`/jobs/${encodeURIComponent(jobId)}`);
    return detail;
  }

  /** The job's GPU series over the last `minutes`. */
  async jobMetrics(jobId: string, minutes: number, now = Date.now()): Promise<JobMetrics> {
    const query = new URLSearchParams({ startTime: rfc3339(now - minutes * 60_000), endTime: rfc3339(now) });
    return this.call<JobMetrics>(`/jobs/${encodeURIComponent(jobId)}/metrics?${query}`);
  }

  /** Every job the caller may see with its last `points` GPU utilisation values, in one
   * request (no request per job), and where they come from (null: no Prometheus). */
  async jobsUtilisation(points = 20): Promise<JobsUtilisation> {
    return this.call<JobsUtilisation>(`/metrics/jobs?points=${points}`);
  }

  async jobManifests(jobId: string): Promise<JobManifests> {
    return this.call<JobManifests>(`/jobs/${encodeURIComponent(jobId)}/manifests`);
  }

  async deleteJob(jobId: string): Promise<{ message: string }> {
    return this.call(`/jobs/${encodeURIComponent(jobId)}`, { method: "DELETE" });
  }
}

/** Why signing in failed, in words rather than HTTP: a token the server does not know (401),
 * a server that cannot check tokens now (503, its own reason kept), one that was not reached
 * at all (the browser's fetch failed); anything else in the server's own message. */
export function signInProblem(failure: unknown): string {
  if (failure instanceof ApiFailure) {
    if (failure.status === 401) {
      return "That token is not known to this server. Check that you copied all of it, or ask the server's admin for a token.";
    }
    if (failure.status === 503) return `The server cannot check tokens right now: ${failure.message}`;
    if (failure.status === 429) return "Too many tries: wait a minute, then sign in again.";
    return `The server did not sign you in: ${failure.message}`;
  }
  if (failure instanceof TypeError) {
    return "The server did not answer: check that gpuctl serve is running and this page's address.";
  }
  return `Signing in failed: ${failure instanceof Error ? failure.message : String(failure)}`;
}

/** A time as the API takes it: 2026-11-23T10:00:00Z (whole seconds, UTC). */
export function rfc3339(millis: number): string {
  return new Date(millis).toISOString().replace(/\.\d+Z$/, "Z");
}

export function jobsQuery(filters: Filters, page: number, pageSize: number): string {
  const query = new URLSearchParams();
  for (const key of ["kind", "pool", "status"] as const) {
    const value = filters[key];
    if (value) query.set(key, value);
  }
  query.set("page", String(page));
  query.set("pageSize", String(pageSize));
  return query.toString();
}

/** The WebSocket subprotocols that carry the token: a browser cannot set the upgrade's
 * Authorization header, and a token in the URL would end up in logs. The server answers
 * with LOGS_PROTOCOL, never echoing the token. */
export const LOGS_PROTOCOL = "logs.gpuctl.v1";
export const BEARER_PROTOCOL = "base64url.bearer.authorization.k8s.io.";

export function logProtocols(token: string): string[] {
  const bytes = new TextEncoder().encode(token);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const encoded = btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return [LOGS_PROTOCOL, `${BEARER_PROTOCOL}${encoded}`];
}

export function logsUrl(location: Location, jobId: string, pod: string | null): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ tail: "200" });
  if (pod) query.set("pod", pod);
  return `${scheme}//${location.host}${API}/jobs/${encodeURIComponent(jobId)}/logs?${query}`;
}

/** A refusal of a spec: the API's message and, where it names them, each problem as
 * `file:line:col: path: message (hint)`. */
export class SpecRefused extends ApiFailure {
  constructor(
    status: number,
    error: string,
    message: string,
    readonly problems: string[],
  ) {
    super(status, error, message);
  }
}

export interface JobCreated {
  jobId: string;
  name: string;
  namespace: string;
  kind: string;
  status: string;
  message: string;
  warnings: string[];
}

/** How POST /jobs is asked: `allowPending` creates a job no node could hold now (it waits,
 * Pending, for a node that fits to join) instead of the 422 Unschedulable refusal. */
export interface CreateOptions {
  allowPending?: boolean;
}

/** The refusal of a job no node could ever hold (POST /jobs without allowPending). */
export const UNSCHEDULABLE = "Unschedulable";

/** POST /jobs with the spec itself (`Content-Type: application/yaml`): the new job, or a
 * SpecRefused with the server's problems. */
export async function createJob(
  client: Client,
  spec: string,
  options: CreateOptions = {},
  fetcher: typeof fetch = (input, init) => fetch(input, init),
): Promise<JobCreated> {
  const headers = {
    Authorization: `Bearer ${client.token}`,
    Accept: "application/json",
    "Content-Type": "application/yaml",
  };
  const query = options.allowPending ? "?allowPending=true" : "";
  const answer = await fetcher(`${API}/jobs${query}`, { method: "POST", body: spec, headers });
  if (answer.ok) return (await answer.json()) as JobCreated;
  const copy = answer.clone();
  const failure = await failureOf(answer);
  let problems: string[] = [];
  try {
    const body = (await copy.json()) as { problems?: unknown };
    if (Array.isArray(body.problems)) problems = body.problems.map(String);
  } catch {
    // not the error shape: the failure says what came back
  }
  return Promise.reject(new SpecRefused(failure.status, failure.error, failure.message, problems));
}
