// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { Client, type JobMetrics, rfc3339 } from "../api";
import { Curves, curvesOf } from "./Curves";

const METRICS: JobMetrics = {
  gpuUtilization: [
    { timestamp: "2026-01-01T00:00:00Z", value: 40 },
    { timestamp: "2026-01-01T00:01:00Z", value: 90 },
  ],
  memoryUsage: [],
  throughput: [],
  custom: { loss: [{ timestamp: "2026-01-01T00:00:00Z", value: 0.5 }], progress: [{ timestamp: "2026-01-01T00:00:00Z", value: 42 }] },
  source: "http://prometheus:9090",
  message: "",
};

describe("Curves", () => {
  it("gives GPU utilisation and memory always, the job's own series when reported, progress apart", () => {
    expect(curvesOf(METRICS).map((curve) => curve.key)).toEqual(["gpuUtilization", "memoryUsage", "custom-loss"]);
    expect(curvesOf({ source: null, message: "none" }).map((curve) => curve.points.length)).toEqual([0, 0]);
  });

  it("asks for the last half hour and shows each curve's summary, progress and a table", async () => {
    const asked: string[] = [];
    const client = new Client("t", async (input) => {
      asked.push(String(input));
      return new Response(JSON.stringify(METRICS), { status: 200 });
    });
    const root = document.createElement("div");
    await act(async () => {
      render(<Curves client={client} jobId="alice.sft" />, root);
    });
    await act(async () => {
      await new Promise((done) => setTimeout(done, 0));
    });
    expect(asked[0]).toMatch(/^\/api\/v1\/jobs\/alice\.sft\/metrics\?startTime=\d{4}-.*Z&endTime=.*Z$/);
    const summaries = [...root.querySelectorAll('[data-testid="curve-summary"]')].map((el) => el.textContent);
    expect(summaries).toEqual(["latest 90 %, min 40 %, max 90 %", "no data yet", "latest 0.5, min 0.5, max 0.5"]);
    expect(root.querySelector("progress")?.getAttribute("value")).toBe("42");
    expect(root.querySelectorAll("details table tbody tr").length).toBe(3); // utilisation 2, loss 1
    act(() => render(null, root));
  });

  it("writes times as the API takes them", () => {
    expect(rfc3339(Date.parse("2026-11-23T10:00:00.123Z"))).toBe("2026-11-23T10:00:00Z");
  });
});
