// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client, type JobDetail } from "../api";
import { Highlighted, JobPage, podWords } from "./Job";

describe("the log's search", () => {
  it("marks every occurrence, the current one apart, and keeps the text as it was", () => {
    const root = document.createElement("pre");
    const lines = ["step 1 loss 0.9", "no match", "LOSS 0.5 loss"];
    act(() => render(<Highlighted lines={lines} query="loss" current={1} />, root));
    const marks = [...root.querySelectorAll("mark")];
    expect(marks.map((mark) => mark.textContent)).toEqual(["loss", "LOSS", "loss"]);
    expect(marks.map((mark) => mark.className)).toEqual(["", "current", ""]);
    expect(root.textContent).toBe(lines.join("\n"));
  });
});

describe("a pod's line", () => {
  it("says its status, readiness and node", () => {
    const pod = { name: "web-1", status: "Running", ready: "1/1", node: "gpu-a100-0", restarts: 0 };
    expect(podWords(pod)).toBe("Running, 1/1 ready, on gpu-a100-0");
    expect(podWords({ ...pod, status: "Pending", ready: "0/1", node: null })).toBe("Pending, 0/1 ready, not on a node yet");
    expect(podWords({ ...pod, restarts: 2 })).toBe("Running, 1/1 ready, on gpu-a100-0, 2 restarts");
  });
});

const PENDING: JobDetail = {
  jobId: "alice.stuck", name: "stuck", namespace: "alice", kind: "training", pool: "p", status: "pending",
  ready: "0/1", gpu: 1, gpuShare: null, gpuType: null, createdAt: "2026-01-01T00:00:00Z", startedAt: null,
  yamlContent: null, image: "busybox", priority: "", why: "", access: "",
  k8sResources: { kind: "Job", pods: [], service: null },
};

/** A client whose job never changes (every poll the same object, as a 304 gives it). */
class SameJob extends Client {
  constructor() {
    super("t", async () => new Response(JSON.stringify({ source: null, message: "", manifests: [] }), { status: 200 }));
  }
  override async job(): Promise<JobDetail> {
    return PENDING;
  }
}

afterEach(() => vi.useRealTimers());

describe("JobPage", () => {
  it("ages Created with the clock while the job stays the same, and shows no log box before its pods start", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-01-01T00:00:30Z") });
    const root = document.createElement("div");
    await act(async () => {
      render(<JobPage client={new SameJob()} jobId="alice.stuck" />, root);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    const created = () => root.querySelector("[data-field=created] time");
    expect(created()?.getAttribute("title")).toBe("2026-01-01T00:00:00Z");
    expect(created()?.textContent).toMatch(/\(30s ago\)$/);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5 * 60_000);
    });
    expect(created()?.textContent).toMatch(/\(5m ago\)$/);
    expect(root.querySelector("[data-testid=no-logs]")?.textContent).toBe("No logs yet: the job's pods have not started.");
    expect(root.querySelector("[data-testid=logs]")).toBeNull();
    act(() => render(null, root));
  });
});
