import { describe, expect, it } from "vitest";
import { columns, sparklinePath, summarise, summaryText } from "./series";

const points = [
  { timestamp: "2026-01-01T00:00:00Z", value: 40 },
  { timestamp: "2026-01-01T00:01:00Z", value: 95.04 },
  { timestamp: "2026-01-01T00:02:00Z", value: 87.25 },
];

describe("series", () => {
  it("summarises latest, min and max in words", () => {
    expect(summarise(points)).toEqual({ latest: 87.25, min: 40, max: 95.04 });
    expect(summaryText(points, "%")).toBe("latest 87.3 %, min 40 %, max 95 %");
    expect(summaryText([], "GiB")).toBe("no data yet");
  });

  it("gives uPlot its columns in unix seconds", () => {
    expect(columns(points)).toEqual([[1767225600, 1767225660, 1767225720], [40, 95.04, 87.25]]);
  });

  it("scales a sparkline into its box, 0 at the bottom", () => {
    expect(sparklinePath([0, 50, 100], 40, 10)).toBe("M0.0,10.0 L20.0,5.0 L40.0,0.0");
    expect(sparklinePath([50], 40, 10)).toBe("M0.0,5.0 L40.0,5.0"); // one value: a level line
    expect(sparklinePath([], 40, 10)).toBe("");
    expect(sparklinePath([0, 200], 10, 10)).toBe("M0.0,10.0 L10.0,0.0"); // above the ceiling: rescaled
  });
});
