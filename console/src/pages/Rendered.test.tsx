// @vitest-environment jsdom
import { render } from "preact";
import { act } from "preact/test-utils";
import { describe, expect, it } from "vitest";
import { Client } from "../api";
import { Rendered } from "./Rendered";

describe("Rendered", () => {
  it("asks for the manifests once, when opened, and shows each object's YAML", async () => {
    const asked: string[] = [];
    const client = new Client("t", async (input) => {
      asked.push(String(input));
      const manifests = [{ kind: "Job", name: "sft", namespace: "alice", yaml: "apiVersion: batch/v1\nkind: Job\n" }];
      return new Response(JSON.stringify({ jobId: "alice.sft", manifests, message: "" }), { status: 200 });
    });
    const root = document.createElement("div");
    act(() => render(<Rendered client={client} jobId="alice.sft" />, root));
    expect(asked).toEqual([]);
    const details = root.querySelector("details")!;
    await act(async () => {
      details.open = true;
      details.dispatchEvent(new Event("toggle"));
      await new Promise((done) => setTimeout(done, 0));
    });
    expect(asked).toEqual(["/api/v1/jobs/alice.sft/manifests"]);
    expect(root.querySelector("h3")?.textContent).toBe("Job sft");
    expect(root.querySelector("pre[data-kind='Job']")?.textContent).toContain("kind: Job");
  });
});
