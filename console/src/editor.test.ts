import { CompletionContext } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { TEMPLATES } from "./bundled";
import { complete } from "./editor";

function offered(text: string, at: string, explicit = false): string[] | null {
  const state = EditorState.create({ doc: text });
  const pos = text.indexOf(at) + at.length;
  const result = complete(new CompletionContext(state, pos, explicit));
  return result ? result.options.map((o) => o.label) : null;
}

describe("completion in the editor", () => {
  const notebook = TEMPLATES.find((t) => t.name === "notebook")!.text;

  it("offers an enum's values for the field being typed", () => {
    expect(offered(notebook.replace("priority: medium", "priority: me"), "priority: me")).toEqual([
      "high",
      "medium",
      "low",
    ]);
  });

  it("offers the missing field names of the mapping, with Ctrl-Space on an empty line", () => {
    const text = notebook.replace("  cpu: 8\n", "  cpu: 8\n  \n");
    const names = offered(text, "  cpu: 8\n  ", true);
    expect(names).toContain("placement");
    expect(names).not.toContain("cpu");
  });

  it("offers the job kinds for kind:, and nothing while nothing is typed", () => {
    expect(offered("kind: t", "kind: t")).toEqual(["training", "inference", "notebook", "compute"]);
    expect(offered("kind: training\n", "kind: training\n")).toBeNull();
  });
});
