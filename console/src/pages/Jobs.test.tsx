// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import type { JobItem } from "../api";
import { JobTable } from "./Jobs";

function jobs(count: number): JobItem[] {
  return Array.from({ length: count }, (_, n) => ({
    jobId: `alice.job-${n}`, name: `job-${n}`, namespace: "alice", kind: "training",
    pool: "default", status: n % 2 ? "running" : "partially-running", ready: "1/2", gpu: 2,
    gpuType: "A100", createdAt: "2026-01-01T00:00:00Z", startedAt: null,
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
      "alice.job-0", "training", "default", "Partially running", "1/2", "2 × A100", "–", "5m",
    ]);
    expect(rows[0].querySelector("a")?.getAttribute("href")).toBe("/jobs/alice.job-0");
  });

  it("draws each job's GPU utilisation as a labelled inline SVG sparkline, no style attribute", () => {
    const root = document.createElement("div");
    const utilisation = new Map([["alice.job-1", [10, 50, 90, 70]]]);
    act(() => render(<JobTable jobs={jobs(3)} now={0} utilisation={utilisation} />, root));
    const sparks = root.querySelectorAll('[data-testid="sparkline"]');
    expect(sparks.length).toBe(1);
    const svg = sparks[0].querySelector("svg")!;
    expect(svg.getAttribute("role")).toBe("img");
    expect(svg.getAttribute("aria-label")).toBe("GPU utilisation, last 30 minutes: now 70 %, peak 90 %");
    expect(svg.querySelector("path")?.getAttribute("d")).toMatch(/^M0\.0,18\.0 L/);
    expect(root.querySelector("tr[data-job='alice.job-1']")?.innerHTML).not.toContain("style=");
  });

  it("says so when no job matches", () => {
    const root = document.createElement("div");
    act(() => render(<JobTable jobs={[]} now={0} />, root));
    expect(root.textContent).toBe("No jobs match.");
  });
});
