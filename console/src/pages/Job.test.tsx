// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { Highlighted } from "./Job";

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
