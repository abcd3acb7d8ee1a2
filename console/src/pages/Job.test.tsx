// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { Highlighted, podWords } from "./Job";

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
