// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { Client, type Filters, type JobItem, type JobsUtilisation } from "../api";
import { JobTable, JobsPage, noUseReason, type Utilisation } from "./Jobs";

function jobs(count: number): JobItem[] {
  return Array.from({ length: count }, (_, n) => ({
    jobId: `alice.job-${n}`, name: `job-${n}`, namespace: "alice", kind: "training",
    pool: "default", status: n % 2 ? "running" : "partially-running", ready: "1/2", gpu: 2,
    gpuShare: null, gpuType: "A100", createdAt: "2026-01-01T00:00:00Z", startedAt: null,
  }));
}

describe("JobTable", () => {
  it("draws a window of 1,000 jobs, with the row count for assistive technology", () => {
    const root = document.createElement("div");
    act(() => render(<JobTable jobs={jobs(1000)} now={Date.parse("2026-01-01T00:05:00Z")} />, root));
    const rows = root.querySelectorAll("tbody tr[data-job]");
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.length).toBeLessThan(60);
    expect(root.querySelector("table")?.getAttribute("aria-rowcount")).toBe("1001");
    const first = rows[0].querySelectorAll("td");
    expect([...first].map((cell) => cell.textContent)).toEqual([
      "alice.job-0", "training", "default", "Partially running", "1/2", "2 × A100", "–no GPU metrics read yet", "5m",
    ]);
    expect(rows[0].querySelector("a")?.getAttribute("href")).toBe("/jobs/alice.job-0");
  });

  it("draws each job's GPU utilisation as a labelled inline SVG sparkline, no style attribute", () => {
    const root = document.createElement("div");
    const series = new Map([["alice.job-1", [10, 50, 90, 70]]]);
    const utilisation = { series, source: "http://prometheus:9090", message: "", problem: null };
    act(() => render(<JobTable jobs={jobs(3)} now={0} utilisation={utilisation} />, root));
    const sparks = root.querySelectorAll('[data-testid="sparkline"]');
    expect(sparks.length).toBe(1);
    const svg = sparks[0].querySelector("svg")!;
    expect(svg.getAttribute("role")).toBe("img");
    expect(svg.getAttribute("aria-label")).toBe("GPU utilisation, last 30 minutes: now 70 %, peak 90 %");
    expect(svg.querySelector("path")?.getAttribute("d")).toMatch(/^M0\.0,18\.0 L/);
    expect(root.querySelector("tr[data-job='alice.job-1']")?.innerHTML).not.toContain("style=");
  });

  it("shows a gpu-share job's share in the GPUs column, not 0", () => {
    const root = document.createElement("div");
    const shared = { ...jobs(1)[0], gpu: 0, gpuShare: "20Gi", gpuType: null };
    act(() => render(<JobTable jobs={[shared]} now={0} />, root));
    const cells = root.querySelectorAll("tbody tr[data-job] td");
    expect(cells[5].textContent).toBe("20Gi shared");
  });

  it("says so when no job matches", () => {
    const root = document.createElement("div");
    act(() => render(<JobTable jobs={[]} now={0} />, root));
    expect(root.textContent).toBe("No jobs match.");
  });
});

/** A client whose job list answers from a script: [jobs, changed] per poll. */
class ScriptedClient extends Client {
  polls = 0;
  constructor(readonly script: [JobItem[], boolean][]) {
    super("t", async () => new Response("{}", { status: 500 }));
  }
  override async jobsIfChanged(_filters: Filters): Promise<[JobItem[], boolean]> {
    const answer = this.script[Math.min(this.polls, this.script.length - 1)];
    this.polls += 1;
    return answer;
  }
  override async jobsUtilisation(): Promise<JobsUtilisation> {
    return { items: [], source: null, message: "no metrics source is configured: start serve with --prometheus-url" };
  }
}

describe("the GPU use column without a sparkline", () => {
  const [job] = jobs(1);
  const running = { ...job, status: "running" };
  const read = (source: string | null, problem: string | null = null): Utilisation => ({
    series: new Map(), source, message: "", problem,
  });

  it("says why there is no figure: no Prometheus, none yet, no GPU, not running, a failure", () => {
    expect(noUseReason(running, read(null))).toBe("no GPU metrics: Prometheus is not configured");
    expect(noUseReason(running, read("http://p:9090"))).toMatch(/^no samples yet: /);
    expect(noUseReason({ ...running, gpu: 0 }, read("http://p:9090"))).toBe("no GPU metrics: the job uses no GPU");
    expect(noUseReason({ ...running, status: "pending" }, read("http://p:9090"))).toBe(
      "no GPU metrics: the job is not running",
    );
    expect(noUseReason(running, read(null, "the server answered 502"))).toBe(
      "no GPU metrics: they could not be read (the server answered 502)",
    );
  });

  it("puts the reason in the cell's title and in words for a screen reader", () => {
    const root = document.createElement("div");
    act(() => render(<JobTable jobs={[running]} now={0} utilisation={read(null)} />, root));
    const cell = root.querySelector("[data-testid=no-gpu-use]")!;
    expect(cell.getAttribute("title")).toBe("no GPU metrics: Prometheus is not configured");
    expect(cell.querySelector(".visually-hidden")?.textContent).toBe("no GPU metrics: Prometheus is not configured");
  });
});

describe("JobsPage", () => {
  it("keeps its rows when the server says nothing changed (304), and redraws when it did", async () => {
    const first = jobs(2);
    const renamed = first.map((job) => ({ ...job, jobId: `${job.jobId}-x` }));
    const client = new ScriptedClient([
      [first, true],
      [renamed, false], // (a 304 answers the same rows: these would show if they were drawn)
    ]);
    const root = document.createElement("div");
    const shown = () => [...root.querySelectorAll("tbody tr[data-job]")].map((row) => row.getAttribute("data-job"));
    const tick = () => act(async () => await new Promise((done) => setTimeout(done, 20)));
    await act(async () => {
      render(<JobsPage client={client} admin={false} pollMs={5} />, root);
    });
    while (client.polls < 4) await tick(); // three 304s after the first answer
    expect(shown()).toEqual(["alice.job-0", "alice.job-1"]);
    client.script.push([renamed, true]);
    const asked = client.polls;
    while (client.polls < asked + 2) await tick();
    expect(shown()).toEqual(["alice.job-0-x", "alice.job-1-x"]);
    act(() => render(null, root));
  });
});
