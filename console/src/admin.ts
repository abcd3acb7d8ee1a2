// The admin pages' side of the public REST API (pools, nodes, labels, quotas, GPUWorkloads)
// and the pure rules they draw with: occupancy per pool and GPU type, bar labels, and whether
// the caller may write (the API's own answer to POST /auth/check; the API still decides).
import { Client } from "./api";

export interface PoolItem {
  name: string;
  description: string;
  gpuTotal: number;
  gpuUsed: number;
  gpuFree: number;
  gpuType: string[];
  allowedGpuTypes: string[];
  nodeCount: number;
  gpuCap: number | null;
  gpuCapUsed: number;
  status: string;
  isolation?: string | null;
}

export interface PoolDetail {
  name: string;
  nodes: string[];
  gpuCap: number | null;
  gpuCapUsed: number;
}

export interface NodeItem {
  nodeName: string;
  status: string;
  gpuTotal: number;
  gpuUsed: number;
  gpuFree: number;
  boundPools: string[];
  cpu: string | null;
  memory: string | null;
  gpuType: string | null;
  vendor: string | null; // the API's word, by the device resource the node advertises
  createdAt: string | null;
}

export interface Label {
  key: string;
  value: string;
}

/** One node's GPU labels (`g8s.host/` keys and the GPU type) in GET /nodes/labels/all. */
export interface NodeLabels {
  nodeName: string;
  gpuLabels: Label[];
  boundPools: string[];
}

export interface NodeDetail {
  nodeName: string;
  gpuType: string | null;
  labels: Label[];
  boundPools: string[];
}

export interface Usage {
  used: string;
  hard: string;
  percent: number | null;
}

export interface QuotaItem {
  userName: string;
  name: string;
  description: string;
  createdAt: string | null;
  cpu: Usage | null;
  memory: Usage | null;
  gpu: Usage | null;
  resources: (Usage & { key: string })[];
}

export interface WorkloadItem {
  namespace: string;
  name: string;
  modelName: string;
  gpuCount: number;
  phase: string;
  node: string | null;
  jobName: string | null;
  retries: number;
  message: string;
  createdAt: string | null;
}

export interface WorkloadList {
  installed: boolean;
  message: string;
  items: WorkloadItem[];
}

export interface Changed {
  message: string;
}

/** PATCH /pools/{poolName}'s answer: the pool as GET /pools/{poolName} gives it, and what
 * the change wrote. */
export interface PoolCapChanged extends PoolDetail {
  message: string;
}

export interface NewPool {
  name: string;
  description?: string;
  nodes: string[];
  gpuType: string[];
  maxGpus?: number;
  isolation?: "isolated" | "shared";
}

const JSON_HEADERS = { "Content-Type": "application/json" };

/** The admin routes with the signed-in token (failures: the API's own message). */
export class AdminApi {
  private readonly client: Client;

  constructor(
    readonly token: string,
    fetcher: typeof fetch = (input, init) => fetch(input, init),
  ) {
    this.client = new Client(token, fetcher);
  }

  static of(client: Client): AdminApi {
    return new AdminApi(client.token);
  }

  private call<T>(path: string, init: RequestInit = {}): Promise<T> {
    return this.client.call<T>(path, init);
  }

  private send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = JSON_HEADERS;
    }
    return this.call<T>(path, init);
  }

  /** May the caller do `action` on `resource`? The API's answer, so that a cluster admin
   * under `serve --auth kubernetes` sees the controls too. */
  async allowed(resource: string, action: string): Promise<boolean> {
    const answer = await this.send<{ allowed: boolean }>("POST", "/auth/check", { resource, action });
    return answer.allowed === true;
  }

  async pools(): Promise<PoolItem[]> {
    return (await this.call<{ items: PoolItem[] }>("/pools")).items;
  }

  pool(name: string): Promise<PoolDetail> {
    return this.call(`/pools/${encodeURIComponent(name)}`);
  }

  createPool(pool: NewPool): Promise<Changed> {
    return this.send("POST", "/pools", pool);
  }

  deletePool(name: string): Promise<Changed> {
    return this.send("DELETE", `/pools/${encodeURIComponent(name)}`);
  }

  /** Set the pool's GPU cap (null: no cap). */
  setCap(pool: string, maxGpus: number | null): Promise<PoolCapChanged> {
    return this.send("PATCH", `/pools/${encodeURIComponent(pool)}`, { maxGpus });
  }

  addNodes(pool: string, nodes: string[], overwrite: boolean): Promise<Changed> {
    return this.send("POST", `/pools/${encodeURIComponent(pool)}/nodes`, { nodes, overwrite });
  }

  removeNode(pool: string, node: string): Promise<Changed> {
    const path = `/pools/${encodeURIComponent(pool)}/nodes/${encodeURIComponent(node)}`;
    return this.send("DELETE", path);
  }

  /** Every item of a paged list (`/nodes`), page after page. */
  private async everyPage<T>(path: string, pageSize: number): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await this.call<{ total: number; items: T[] }>(`${path}?page=${page}&pageSize=${pageSize}`);
      items.push(...answer.items);
      if (answer.items.length === 0 || items.length >= answer.total) return items;
    }
  }

  /** Every node, page after page. */
  nodes(pageSize = 1000): Promise<NodeItem[]> {
    return this.everyPage<NodeItem>("/nodes", pageSize);
  }

  /** Every node's GPU labels, page after page (one list, not a request per node). */
  labels(pageSize = 1000): Promise<NodeLabels[]> {
    return this.everyPage<NodeLabels>("/nodes/labels/all", pageSize);
  }

  node(name: string): Promise<NodeDetail> {
    return this.call(`/nodes/${encodeURIComponent(name)}`);
  }

  setLabel(node: string, key: string, value: string, overwrite: boolean): Promise<Changed> {
    return this.send("POST", `/nodes/${encodeURIComponent(node)}/labels`, { key, value, overwrite });
  }

  removeLabel(node: string, key: string): Promise<Changed> {
    // the key keeps its slash: the route takes the rest of the path as the key
    const path = `/nodes/${encodeURIComponent(node)}/labels/${key.split("/").map(encodeURIComponent).join("/")}`;
    return this.send("DELETE", path);
  }

  async quotas(): Promise<QuotaItem[]> {
    return (await this.call<{ items: QuotaItem[] }>("/quotas")).items;
  }

  createQuota(yamlContent: string): Promise<Changed> {
    return this.send("POST", "/quotas", { yamlContent });
  }

  deleteQuota(user: string): Promise<Changed> {
    return this.send("DELETE", `/quotas/${encodeURIComponent(user)}`);
  }

  workloads(): Promise<WorkloadList> {
    return this.call("/workloads");
  }
}

/** The lists the admin pages draw from, each read with its list endpoint: one request a list
 * each time (however many pools or nodes there are), never one per item. */
export interface Lists {
  pools?: PoolItem[];
  nodes?: NodeItem[];
  labels?: NodeLabels[];
  quotas?: QuotaItem[];
}
export type ListName = keyof Lists;

const LIST_READERS: { [name in ListName]-?: (api: AdminApi) => Promise<NonNullable<Lists[name]>> } = {
  pools: (api) => api.pools(),
  nodes: (api) => api.nodes(),
  labels: (api) => api.labels(),
  quotas: (api) => api.quotas(),
};

/** The lists named, read at once. */
export async function readLists(api: AdminApi, names: readonly ListName[]): Promise<Lists> {
  const read = await Promise.all(names.map(async (name) => [name, await LIST_READERS[name](api)] as const));
  return Object.fromEntries(read) as Lists;
}

/** A pool's nodes as GET /nodes binds them (each node's `boundPools`: the pool a node is in
 * follows one rule everywhere); the default pool's are the nodes in no pool. */
export function membersOf(pool: string, nodes: NodeItem[], defaultPool = "default"): string[] {
  const inIt = (node: NodeItem) =>
    node.boundPools.includes(pool) || (pool === defaultPool && node.boundPools.length === 0);
  return nodes.filter(inIt).map((node) => node.nodeName).sort();
}

/** One bar: how much of how much, with the words a screen reader says and the page shows. */
export interface Occupancy {
  label: string;
  used: number;
  total: number;
  text: string;
}

export function occupancy(label: string, used: number, total: number, unit = "GPUs"): Occupancy {
  const shown = Math.max(0, used);
  const share = total > 0 ? Math.round((shown / total) * 100) : 0;
  const text = total > 0 ? `${shown} of ${total} ${unit} used (${share}%)` : `no ${unit}`;
  return { label, used: shown, total: Math.max(total, 0), text };
}

/** A pool's bars: all its GPUs, its cap when it has one, and each GPU type of its nodes. */
export function poolBars(pool: PoolItem, nodes: NodeItem[]): Occupancy[] {
  const bars = [occupancy(`${pool.name}: GPUs`, pool.gpuUsed, pool.gpuTotal)];
  if (pool.gpuCap !== null) {
    bars.push(occupancy(`${pool.name}: GPU cap`, pool.gpuCapUsed, pool.gpuCap));
  }
  for (const [type, sum] of byGpuType(nodes.filter((n) => n.boundPools.includes(pool.name)))) {
    bars.push(occupancy(`${pool.name}: ${type}`, sum.used, sum.total));
  }
  return bars;
}

/** GPUs used and total per GPU type over `nodes` (nodes without GPUs left out), by type. */
export function byGpuType(nodes: NodeItem[]): [string, { used: number; total: number }][] {
  const sums = new Map<string, { used: number; total: number }>();
  for (const node of nodes) {
    if (node.gpuTotal <= 0) continue;
    const type = node.gpuType ?? "unknown type";
    const sum = sums.get(type) ?? { used: 0, total: 0 };
    sum.used += node.gpuUsed;
    sum.total += node.gpuTotal;
    sums.set(type, sum);
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b));
}

/** A quota line as a bar: `percent` is the API's; a quantity that is not a plain number
 * (e.g. "20Gi") is shown as the API wrote it. */
export function quotaBar(user: string, resource: string, usage: Usage): Occupancy {
  const used = Number(usage.used);
  const hard = Number(usage.hard);
  const numbers = Number.isFinite(used) && Number.isFinite(hard);
  const percent = usage.percent ?? (numbers && hard > 0 ? Math.round((used / hard) * 100) : 0);
  return {
    label: `${user}: ${resource}`,
    used: Math.min(Math.max(percent, 0), 100),
    total: 100,
    text: `${usage.used} of ${usage.hard} used (${percent}%)`,
  };
}

/** Node names typed in one field: split on commas and spaces, blanks and repeats dropped. */
export function namesIn(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((name) => name.length > 0))];
}

/** The quota spec POST /quotas takes, for one user. */
export function quotaSpec(name: string, user: string, gpu: string, cpu: string, memory: string): string {
  const limits = [["gpu", gpu], ["cpu", cpu], ["memory", memory]]
    .filter(([, value]) => value.trim() !== "")
    .map(([key, value]) => `${key}: ${scalar(value.trim())}`);
  return [
    "kind: quota",
    "version: v0.1",
    "metadata:",
    `  name: ${JSON.stringify(name)}`,
    "users:",
    `  ${JSON.stringify(user)}: {${limits.join(", ")}}`,
    "",
  ].join("\n");
}

/** A number as YAML writes it, anything else as a quoted string (never YAML syntax). */
function scalar(value: string): string {
  return /^\d+(\.\d+)?$/.test(value) ? value : JSON.stringify(value);
}

/** The cap typed in a field: empty is no cap (null); a number as typed (the API refuses a
 * negative or fractional one in its own words); undefined for what is not a number at all
 * (sending it as null would remove the cap). */
export function capOf(text: string): number | null | undefined {
  const typed = text.trim();
  if (typed === "") return null;
  return /^-?\d+(\.\d+)?$/.test(typed) ? Number(typed) : undefined;
}

/** A failure's words, whatever was thrown. */
export function wordsOf(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}
