// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client } from "../api";
import { PoolsPage } from "./Pools";

const POOL = {
  name: "train", description: "", gpuTotal: 8, gpuUsed: 2, gpuFree: 6, gpuType: ["A100"],
  allowedGpuTypes: [], nodeCount: 1, gpuCap: null, gpuCapUsed: 0, status: "active", isolation: "shared",
};

function fakeApi(allowed: boolean) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const path = String(input).replace(/^\/api\/v1/, "").split("?")[0];
    const bodies: Record<string, unknown> = {
      "/auth/check": { allowed, message: "", user: "u", role: "user" },
      "/pools": { items: [POOL] },
      "/pools/train": { name: "train", nodes: ["n1"], gpuCap: null, gpuCapUsed: 0 },
      "/nodes": { total: 1, items: [] },
    };
    void init;
    return new Response(JSON.stringify(bodies[path]), { status: 200 });
  };
}

async function page(allowed: boolean): Promise<HTMLElement> {
  vi.stubGlobal("fetch", vi.fn(fakeApi(allowed)));
  const root = document.createElement("div");
  await act(async () => {
    render(<PoolsPage client={new Client("t")} pollMs={60000} />, root);
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
});
