import { describe, expect, it } from "vitest";
import { occurrences, segments, stepped } from "./logsearch";

const LINES = ["epoch 1 loss 0.9", "Loss went down", "nothing here", "loss loss"];

describe("log search", () => {
  it("finds every occurrence, whatever the case, in reading order", () => {
    expect(occurrences(LINES, "LOSS")).toEqual([
      { line: 0, start: 8 },
      { line: 1, start: 0 },
      { line: 3, start: 0 },
      { line: 3, start: 5 },
    ]);
    expect(occurrences(LINES, "")).toEqual([]);
  });

  it("cuts a line into text and numbered occurrences, keeping the line's own case", () => {
    expect(segments("Loss and loss", "loss", 2)).toEqual([
      { text: "Loss", occurrence: 2 },
      { text: " and ", occurrence: null },
      { text: "loss", occurrence: 3 },
    ]);
    expect(segments("plain", "", 0)).toEqual([{ text: "plain", occurrence: null }]);
  });

  it("walks next and previous round the ends", () => {
    expect(stepped(3, 1, 4)).toBe(0);
    expect(stepped(0, -1, 4)).toBe(3);
    expect(stepped(0, 1, 0)).toBe(0);
  });
});
