import { describe, expect, it } from "vitest";
import { visibleRows } from "./virtual";

describe("visibleRows", () => {
  it("draws the rows in view and the overscan, not all 1,000", () => {
    const shown = visibleRows(0, 600, 36, 1000, 10);
    expect(shown.first).toBe(0);
    expect(shown.last - shown.first).toBeLessThan(50);
    expect(shown.above).toBe(0);
    expect(shown.below).toBe((1000 - shown.last) * 36);
  });
  it("keeps the scroll height: rows drawn plus spacers make every row's height", () => {
    const shown = visibleRows(18000, 600, 36, 1000, 10);
    expect(shown.first).toBe(490);
    expect(shown.above + (shown.last - shown.first) * 36 + shown.below).toBe(36000);
  });
  it("stops at the end of the list", () => {
    const shown = visibleRows(1e9, 600, 36, 30, 10);
    expect(shown.last).toBe(30);
    expect(shown.below).toBe(0);
  });
});
