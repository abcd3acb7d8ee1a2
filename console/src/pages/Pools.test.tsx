// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../api";
import { NodesPage } from "./Nodes";
import { PoolsPage } from "./Pools";

const POOL = {
  name: "train", description: "", gpuTotal: 8, gpuUsed: 2, gpuFree: 6, gpuType: ["A100"],
  allowedGpuTypes: [], nodeCount: 1, gpuCap: null, gpuCapUsed: 0, status: "active", isolation: "shared",
};

function node(name: string, pools: string[]) {
  return {
    nodeName: name, status: "ready", gpuTotal: 8, gpuUsed: 2, gpuFree: 6, boundPools: pools, cpu: "64",
    memory: "512Gi", gpuType: "A100", vendor: "NVIDIA", createdAt: null,
  };
}

const asked: string[] = [];

function fakeApi(allowed: boolean) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const path = String(input).replace(/^\/api\/v1/, "").split("?")[0];
    asked.push(path);
    const bodies: Record<string, unknown> = {
      "/auth/check": { allowed, message: "", user: "u", role: "user" },
      "/pools": { items: [POOL] },
      "/nodes": { total: 2, items: [node("n1", ["train"]), node("n2", [])] },
      "/nodes/labels/all": {
        total: 2,
        items: [
          { nodeName: "n1", gpuLabels: [{ key: "g8s.host/rack", value: "r1" }], boundPools: ["train"] },
          { nodeName: "n2", gpuLabels: [], boundPools: [] },
        ],
      },
    };
    void init;
    const body = bodies[path];
    return new Response(JSON.stringify(body ?? { error: "NotFound", message: path }), { status: body ? 200 : 404 });
  };
}

async function page(allowed: boolean, which: "pools" | "nodes" = "pools"): Promise<HTMLElement> {
  asked.length = 0;
  vi.stubGlobal("fetch", vi.fn(fakeApi(allowed)));
  const root = document.createElement("div");
  const Page = which === "pools" ? PoolsPage : NodesPage;
  await act(async () => {
    render(<Page client={new Client("t")} pollMs={60000} />, root);
  });
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
  return root;
}

afterEach(() => vi.unstubAllGlobals());

describe("PoolsPage", () => {
  it("renders no control for a caller the API lets only read", async () => {
    const root = await page(false);
    expect(root.querySelector("[data-pool=train] h2")?.textContent).toBe("train");
    expect(root.querySelector("[data-pool=train] p")?.textContent).toBe(
      "No description. Allows any GPU type; status active; shared (no taint).",
    );
    expect(root.querySelector("meter")?.getAttribute("aria-valuetext")).toBe("2 of 8 GPUs used (25%)");
    expect([...root.querySelectorAll("button")].map((b) => b.textContent)).toEqual([]);
    expect(root.querySelector("form")).toBeNull();
  });

  it("renders the admin controls when the API allows creating pools", async () => {
    const root = await page(true);
    const buttons = [...root.querySelectorAll("button")].map((b) => b.textContent);
    expect(buttons).toContain("Create pool");
    expect(buttons).toContain("Delete pool train");
    expect(buttons).toContain("Remove");
  });

  it("reads the pools and their nodes from the two list endpoints, no request per pool", async () => {
    const root = await page(false);
    expect(root.querySelector("[data-pool=train] ul.nodes")?.textContent).toBe("n1 ");
    expect(asked.filter((path) => path !== "/auth/check").sort()).toEqual(["/nodes", "/pools"]);
  });
});

describe("NodesPage", () => {
  it("reads the nodes and their GPU labels from the two list endpoints, no request per node", async () => {
    const root = await page(false, "nodes");
    expect(root.querySelector("tr[data-node=n1] td.labels")?.textContent).toContain("g8s.host/rack=r1");
    expect(root.querySelector("tr[data-node=n2] summary")?.textContent).toBe("0 labels");
    expect(asked.filter((path) => path !== "/auth/check").sort()).toEqual(["/nodes", "/nodes/labels/all"]);
  });
});
