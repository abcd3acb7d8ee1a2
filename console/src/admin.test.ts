import { describe, expect, it } from "vitest";
import {
  AdminApi,
  type NodeItem,
  type PoolItem,
  byGpuType,
  capOf,
  namesIn,
  occupancy,
  poolBars,
  quotaBar,
  quotaSpec,
} from "./admin";
import { API } from "./api";

function node(name: string, type: string | null, used: number, total: number, pools: string[]): NodeItem {
  return {
    nodeName: name, status: "active", gpuTotal: total, gpuUsed: used, gpuFree: total - used,
    boundPools: pools, cpu: "96", memory: "1Ti", gpuType: type, vendor: type ? "NVIDIA" : null, createdAt: null,
  };
}

function pool(cap: number | null): PoolItem {
  return {
    name: "train", description: "", gpuTotal: 20, gpuUsed: 6, gpuFree: 14, gpuType: [],
    allowedGpuTypes: [], nodeCount: 3, gpuCap: cap, gpuCapUsed: 5, status: "active",
  };
}

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("occupancy", () => {
  it("says how much of how much, in words and as a share", () => {
    expect(occupancy("train: GPUs", 6, 16)).toEqual({
      label: "train: GPUs", used: 6, total: 16, text: "6 of 16 GPUs used (38%)",
    });
    expect(occupancy("cpu-0: GPUs", 0, 0).text).toBe("no GPUs");
  });

  it("draws a pool's GPUs, its cap when it has one, and each GPU type of its nodes", () => {
    const nodes = [
      node("a", "A100-80G", 4, 8, ["train"]),
      node("b", "A100-80G", 2, 8, ["train"]),
      node("c", "T4-16G", 0, 4, ["train"]),
      node("d", "A100-80G", 8, 8, ["other"]),
      node("e", null, 0, 0, ["train"]),
    ];
    expect(poolBars(pool(10), nodes).map((bar) => `${bar.label}: ${bar.text}`)).toEqual([
      "train: GPUs: 6 of 20 GPUs used (30%)",
      "train: GPU cap: 5 of 10 GPUs used (50%)",
      "train: A100-80G: 6 of 16 GPUs used (38%)",
      "train: T4-16G: 0 of 4 GPUs used (0%)",
    ]);
    expect(poolBars(pool(null), []).map((bar) => bar.label)).toEqual(["train: GPUs"]);
  });

  it("sums GPUs by type, a node without a type counted as such", () => {
    expect(byGpuType([node("a", null, 1, 2, []), node("b", "H100", 3, 8, [])])).toEqual([
      ["H100", { used: 3, total: 8 }],
      ["unknown type", { used: 1, total: 2 }],
    ]);
  });

  it("draws a quota line from the API's percent, its quantities as written", () => {
    expect(quotaBar("alice", "memory", { used: "2Gi", hard: "20Gi", percent: 10 })).toEqual({
      label: "alice: memory", used: 10, total: 100, text: "2Gi of 20Gi used (10%)",
    });
    expect(quotaBar("bob", "gpu", { used: "6", hard: "4", percent: null }).used).toBe(100);
  });
});

describe("forms", () => {
  it("reads node names split by commas or spaces, once each", () => {
    expect(namesIn(" node1, node2 node1,,")).toEqual(["node1", "node2"]);
  });

  it("writes the quota spec POST /quotas takes, values never YAML syntax", () => {
    expect(quotaSpec("team", "carol", "4", "16", "64Gi")).toBe(
      'kind: quota\nversion: v0.1\nmetadata:\n  name: "team"\nusers:\n  "carol": {gpu: 4, cpu: 16, memory: "64Gi"}\n',
    );
    expect(quotaSpec("q", "dan", "", "x: y", "")).toContain('"dan": {cpu: "x: y"}');
  });
});

describe("AdminApi", () => {
  it("shows admin controls only when the API says the caller may write", async () => {
    const asked: unknown[] = [];
    const api = (allowed: boolean) =>
      new AdminApi("t", async (_input, init) => {
        asked.push(JSON.parse(String(init?.body)));
        return answer(200, { allowed, message: "", user: "u", role: "kubernetes" });
      });
    expect(await api(true).allowed("pools", "create")).toBe(true);
    expect(await api(false).allowed("labels", "create")).toBe(false);
    expect(asked).toEqual([
      { resource: "pools", action: "create" },
      { resource: "labels", action: "create" },
    ]);
  });

  it("keeps a label key's slash in the path and sends the token as a header", async () => {
    const seen: { url: string; method?: string; auth: string | null }[] = [];
    const api = new AdminApi("s3cret", async (input, init) => {
      seen.push({ url: String(input), method: init?.method, auth: new Headers(init?.headers).get("Authorization") });
      return answer(200, { message: "ok" });
    });
    await api.removeLabel("gpu-a100-0", "g8s.host/rack");
    await api.addNodes("train pool", ["n1"], true);
    expect(seen).toEqual([
      { url: `${API}/nodes/gpu-a100-0/labels/g8s.host/rack`, method: "DELETE", auth: "Bearer s3cret" },
      { url: `${API}/pools/train%20pool/nodes`, method: "POST", auth: "Bearer s3cret" },
    ]);
  });

  it("fails with the API's refusal in its own words", async () => {
    const api = new AdminApi("t", async () =>
      answer(403, { error: "Forbidden", message: "create pools: admins only" }),
    );
    await expect(api.createPool({ name: "p", nodes: [], gpuType: [] })).rejects.toThrow(
      "create pools: admins only",
    );
  });
});

describe("setting a pool's cap", () => {
  it("PATCHes the pool with maxGpus (null: no cap) and answers the API's pool", async () => {
    const seen: { url: string; method?: string; body: unknown }[] = [];
    const api = new AdminApi("t", async (input, init) => {
      seen.push({ url: String(input), method: init?.method, body: JSON.parse(String(init?.body)) });
      return answer(200, { name: "train pool", nodes: [], gpuCap: 12, gpuCapUsed: 0, message: "configmap/pool-train configured" });
    });
    const changed = await api.setCap("train pool", 12);
    await api.setCap("train pool", null);
    expect(changed.gpuCap).toBe(12);
    expect(changed.message).toBe("configmap/pool-train configured");
    expect(seen).toEqual([
      { url: `${API}/pools/train%20pool`, method: "PATCH", body: { maxGpus: 12 } },
      { url: `${API}/pools/train%20pool`, method: "PATCH", body: { maxGpus: null } },
    ]);
  });

  it("fails with the API's refusal in its own words", async () => {
    const api = new AdminApi("t", async () =>
      answer(400, { error: "BadRequest", message: "maxGpus: Input should be greater than or equal to 0", field: "maxGpus" }),
    );
    await expect(api.setCap("train", -1)).rejects.toThrow("maxGpus: Input should be greater than or equal to 0");
  });

  it("reads an empty field as no cap and refuses to guess at what is not a number", () => {
    expect(capOf(" ")).toBeNull();
    expect(capOf("12")).toBe(12);
    expect(capOf("-1")).toBe(-1); // sent: the API refuses it in its words
    expect(capOf("twelve")).toBeUndefined();
    expect(capOf("1e3")).toBeUndefined();
  });
});
