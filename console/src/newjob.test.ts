import { describe, expect, it } from "vitest";
import { Client, createJob, SpecRefused } from "./api";
import { byFileName, SCHEMAS, TEMPLATES } from "./bundled";
import {
  fieldOffers,
  findings,
  jobSchemas,
  ALLOW_PENDING_LABEL,
  placeAt,
  preferServer,
  problemsNote,
  refusalMessage,
  type Schema,
  schemaAt,
  schemaFor,
  serverFinding,
  serverProblem,
  standalone,
  templatesOf,
  valueOffers,
} from "./newjob";
import { routeOf } from "./router";

const TRAINING = `kind: training
version: v0.1
job:
  name: t1
environment:
  image: busybox
resources:
  gpu: 1
  cpu: 1
  memory: 1Gi
`;

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

describe("the kinds' schemas", () => {
  it("picks the schema of the document's kind, and none for another kind or none", () => {
    expect(schemaFor(TRAINING, SCHEMAS)?.title).toMatch(/^gpuctl training job/);
    expect(schemaFor("kind: inference\n", SCHEMAS)?.title).toMatch(/^gpuctl inference/);
    expect(schemaFor("kind: pool\n", SCHEMAS)).toBeNull();
    expect(schemaFor("version: v0.1\n", SCHEMAS)).toBeNull();
    expect([...SCHEMAS.keys()]).toEqual(["training", "inference", "notebook", "compute"]);
  });

  it("copies the shared definitions into a kind's schema so that it stands alone", () => {
    const common = { $defs: { gpu: { type: "integer" } } };
    const kind = { properties: { gpu: { $ref: "common.json#/$defs/gpu" } } };
    expect(standalone(kind, common)).toEqual({
      properties: { gpu: { $ref: "#/$defs/gpu" } },
      $defs: { gpu: { type: "integer" } },
    });
    expect(jobSchemas({ "common.json": common, "compute.json": kind }).size).toBe(1);
    expect(JSON.stringify([...SCHEMAS.values()])).not.toContain("common.json#");
  });

  it("follows $ref to the schema of a field", () => {
    const training = SCHEMAS.get("training") as Schema;
    expect(schemaAt(training, ["job", "priority"])?.enum).toEqual(["high", "medium", "low"]);
    expect(schemaAt(training, ["nothing"])).toBeNull();
  });

  it("keeps a $ref's fields next to the referring schema's own (notebook's job.name)", () => {
    const notebook = SCHEMAS.get("notebook") as Schema;
    expect(schemaAt(notebook, ["job", "priority"])?.enum).toEqual(["high", "medium", "low"]);
    expect(schemaAt(notebook, ["job", "name"])).toMatchObject({ maxLength: 52, type: "string" });
  });
});

describe("findings as you type", () => {
  it("finds nothing in a valid spec or an empty editor", () => {
    expect(findings(TRAINING, SCHEMAS)).toEqual([]);
    expect(findings("  \n", SCHEMAS)).toEqual([]);
  });

  it("puts a wrong value on its line, with the field's path", () => {
    const text = TRAINING.replace("gpu: 1", "gpu: lots");
    const found = findings(text, SCHEMAS);
    expect(found).toHaveLength(1);
    expect(lineOf(text, found[0].from)).toBe(8);
    expect(text.slice(found[0].from, found[0].to)).toBe("lots");
    expect(found[0].message).toBe("resources.gpu: expected an integer, got text 'lots'"); // as the CLI says
  });

  it("puts an unknown field on its name", () => {
    const text = TRAINING.replace("  name: t1\n", "  name: t1\n  colour: red\n");
    const found = findings(text, SCHEMAS);
    expect(found.map((f) => [lineOf(text, f.from), text.slice(f.from, f.to), f.message])).toEqual([
      [5, "colour", "job.colour: this field is not allowed here"],
    ]);
  });

  it("says which field is missing, with the rule's hint where the schema has one", () => {
    const text = TRAINING.replace("  memory: 1Gi\n", "");
    expect(findings(text, SCHEMAS).map((f) => f.message)).toEqual(["resources: 'memory' is required"]);
    const named = findings(TRAINING.replace("name: t1", "name: Big_Name"), SCHEMAS);
    expect(named[0].message).toContain("(lower-case letters, digits and '-'");
  });

  it("says a value that fits none of a field's forms once, with the field's hint", () => {
    const text = TRAINING.replace("cpu: 1", "cpu: many");
    expect(findings(text, SCHEMAS).map((f) => f.message)).toEqual([
      "resources.cpu: text 'many' is not valid (e.g. 8, 0.5 or 500m)",
    ]);
    const priority = findings(TRAINING.replace("  name: t1\n", "  name: t1\n  priority: urgent\n"), SCHEMAS);
    expect(priority.map((f) => f.message)).toEqual([
      "job.priority: text 'urgent' is not one of high, medium, low",
    ]);
  });

  it("names the job kinds when the kind is missing or not one", () => {
    expect(findings("version: v0.1\n", SCHEMAS)[0].message).toBe(
      "kind: missing (one of training, inference, notebook, compute)",
    );
    const text = "kind: pool\n";
    const [found] = findings(text, SCHEMAS);
    expect(text.slice(found.from, found.to)).toBe("pool");
    expect(found.message).toMatch(/^kind: 'pool' is not a job kind/);
  });

  it("reports broken YAML where the parser stopped", () => {
    const text = "kind: training\njob: [\n";
    const [found] = findings(text, SCHEMAS);
    expect(lineOf(text, found.from)).toBeGreaterThanOrEqual(2);
  });
});

describe("completion", () => {
  const training = SCHEMAS.get("training") as Schema;

  it("offers the fields of the mapping the cursor is in, without those already there", () => {
    const lines = TRAINING.split("\n");
    lines.splice(8, 0, "  gp");
    const place = placeAt(lines, 8, "  gp");
    expect(place).toEqual({ path: ["resources"], present: ["gpu", "cpu", "memory"], key: null });
    const names = fieldOffers(training, place.path, place.present).map((o) => o.label);
    expect(names).toContain("gpu-type");
    expect(names).toContain("pool");
    expect(names).not.toContain("gpu");
  });

  it("offers the values an enum allows for the field being written", () => {
    const lines = ["kind: training", "job:", "  name: t1", "  priority: h"];
    const place = placeAt(lines, 3, "  priority: h");
    expect(place).toEqual({ path: ["job"], present: ["name"], key: "priority" });
    const values = valueOffers(training, [...place.path, "priority"]).map((o) => o.label);
    expect(values).toEqual(["high", "medium", "low"]);
    expect(valueOffers(training, ["kind"]).map((o) => o.label)).toEqual(["training"]);
  });

  it("reads list items: the fields of an env entry", () => {
    const lines = ["environment:", "  env:", "    - name: A", "      va"];
    const place = placeAt(lines, 3, "      va");
    expect(place).toEqual({ path: ["environment", "env", "0"], present: ["name"], key: null });
    expect(fieldOffers(training, place.path, place.present).map((o) => o.label)).toEqual(["value"]);
  });
});

describe("the server's problems", () => {
  const text = TRAINING.replace("  cpu: 1\n", "  cpu: 1\n  pool: nowhere\n");

  it("reads file:line:col: path: message (hint)", () => {
    expect(serverProblem("request body:9:9: resources.pool: no pool nowhere (create it)")).toEqual({
      line: 9,
      column: 9,
      message: "resources.pool: no pool nowhere (create it)",
    });
    expect(serverProblem("request body:4: job: bad")).toEqual({ line: 4, column: null, message: "job: bad" });
    expect(serverProblem("no place: at all")).toEqual({
      line: null,
      column: null,
      message: "no place: at all",
    });
  });

  it("marks the word at line:col, the whole line without a column, the start without a line", () => {
    const atColumn = serverFinding(text, { line: 10, column: 9, message: "m" });
    expect(text.slice(atColumn.from, atColumn.to)).toBe("nowhere");
    const atLine = serverFinding(text, { line: 10, column: null, message: "m" });
    expect(text.slice(atLine.from, atLine.to)).toBe("  pool: nowhere");
    expect(serverFinding(text, { line: null, column: null, message: "m" })).toEqual({
      from: 0,
      to: 1,
      message: "m",
    });
    const past = serverFinding(text, { line: 99, column: 1, message: "m" });
    expect(past.from).toBe(0);
  });
});

describe("one list of problems", () => {
  const broken = TRAINING.replace("  gpu: 1\n", "  gpu: lots\n");

  it("shows the server's problems instead of the schema's wording of the same field", () => {
    const local = findings(broken, SCHEMAS);
    expect(local.map((f) => f.message)).toEqual([expect.stringMatching(/^resources\.gpu: /)]);
    const server = [serverFinding(broken, serverProblem("request body:8:8: resources.gpu: must be an integer"))];
    const shown = preferServer(local, server);
    expect(shown.map((f) => f.message)).toEqual(["resources.gpu: must be an integer"]);
    expect(preferServer(local, [])).toBe(local); // no server answer for this text: the schema's
  });

  it("says nothing is wrong only when there is text, and lists nothing twice", () => {
    expect(problemsNote(true, 0, false)).toBe("Paste or write a spec, or use a template.");
    expect(problemsNote(false, 0, false)).toBe("No problems found.");
    expect(problemsNote(false, 2, false)).toBeNull(); // the list itself
    expect(problemsNote(false, 1, true)).toBeNull(); // the refusal above lists them
  });
});

describe("templates", () => {
  it("are the examples of the job kinds, by kind then name", () => {
    const found = templatesOf({
      "../../examples/pool.yaml": "kind: pool\n",
      "../../examples/quota.yaml": "# a quota\nkind: quota\n",
      "../../examples/z.yaml": "kind: training\n",
      "../../examples/a.yaml": "# comment\nkind: 'training'\n",
      "../../examples/web.yaml": "kind: inference\n",
    });
    expect(found.map((t) => [t.name, t.kind])).toEqual([
      ["a", "training"],
      ["z", "training"],
      ["web", "inference"],
    ]);
  });

  it("offers every job example in examples/, and no pool or quota", () => {
    const kinds = new Set(TEMPLATES.map((t) => t.kind));
    expect(kinds).toEqual(new Set(["training", "inference", "notebook", "compute"]));
    expect(TEMPLATES.map((t) => t.name)).toContain("notebook");
    expect(TEMPLATES.map((t) => t.name)).not.toContain("pool");
    expect(byFileName({ "../../schemas/x.json": 1 })).toEqual({ "x.json": 1 });
  });

  it("are all valid for their kind's schema", () => {
    for (const template of TEMPLATES) {
      expect([template.name, findings(template.text, SCHEMAS)]).toEqual([template.name, []]);
    }
  });
});

describe("POST /jobs from the page", () => {
  const client = new Client("t0ken");

  it("sends the spec as application/yaml with the token, and answers the new job", async () => {
    const sent: RequestInit[] = [];
    const fetcher = async (_url: RequestInfo | URL, init?: RequestInit) => {
      sent.push(init ?? {});
      return new Response(JSON.stringify({ jobId: "alice.t1", status: "pending" }), { status: 201 });
    };
    const created = await createJob(client, TRAINING, {}, fetcher as typeof fetch);
    expect(created.jobId).toBe("alice.t1");
    const headers = sent[0].headers as Record<string, string>;
    expect(headers["Content-Type"]).toBe("application/yaml");
    expect(headers.Authorization).toBe("Bearer t0ken");
    expect(sent[0].body).toBe(TRAINING);
  });

  it("turns a refusal into its message and each problem", async () => {
    const body = {
      error: "HostPathNotAllowed",
      message: "request body:9:13: storage.workdirs[0].path: host path /x is not allowed",
      field: "storage.workdirs[0].path",
      problems: ["request body:9:13: storage.workdirs[0].path: host path /x is not allowed"],
    };
    const fetcher = async () => new Response(JSON.stringify(body), { status: 422 });
    const refused = await createJob(client, TRAINING, {}, fetcher as typeof fetch).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SpecRefused);
    expect((refused as SpecRefused).status).toBe(422);
    expect((refused as SpecRefused).problems.map(serverProblem)).toEqual([
      { line: 9, column: 13, message: "storage.workdirs[0].path: host path /x is not allowed" },
    ]);
  });

  it("asks for allowPending=true only when the checkbox says so", async () => {
    const urls: string[] = [];
    const fetcher = async (url: RequestInfo | URL) => {
      urls.push(String(url));
      return new Response(JSON.stringify({ jobId: "alice.t1", warnings: [] }), { status: 201 });
    };
    await createJob(client, TRAINING, {}, fetcher as typeof fetch);
    await createJob(client, TRAINING, { allowPending: false }, fetcher as typeof fetch);
    await createJob(client, TRAINING, { allowPending: true }, fetcher as typeof fetch);
    expect(urls).toEqual(["/api/v1/jobs", "/api/v1/jobs", "/api/v1/jobs?allowPending=true"]);
  });

  it("turns Unschedulable into its problems at their lines, and says the checkbox accepts it", async () => {
    const problem =
      "yamlContent:12:13: resources.gpu-type: no node has GPU type 'H900' (types that exist: A100)" +
      " (use one of the types that exist)";
    const body = { error: "Unschedulable", message: problem, field: "resources.gpu-type", problems: [problem] };
    const fetcher = async () => new Response(JSON.stringify(body), { status: 422 });
    const refused = (await createJob(client, TRAINING, {}, fetcher as typeof fetch).catch((e: unknown) => e)) as SpecRefused;
    expect(refused).toBeInstanceOf(SpecRefused);
    expect(refused.error).toBe("Unschedulable");
    const [found] = refused.problems.map(serverProblem);
    expect(found).toEqual({
      line: 12,
      column: 13,
      message:
        "resources.gpu-type: no node has GPU type 'H900' (types that exist: A100) (use one of the types that exist)",
    });
    const said = refusalMessage(refused.error, refused.message, 1);
    expect(said).toContain("no node can hold this job (1 problem)");
    expect(said).toContain(`Check “${ALLOW_PENDING_LABEL}” to create it anyway`);
  });

  it("words other refusals as before: the count of problems, or the server's message", () => {
    expect(refusalMessage("HostPathNotAllowed", "m", 2)).toBe("The server refused the spec (2 problems):");
    expect(refusalMessage("Conflict", "job t1 exists", 0)).toBe("job t1 exists");
    expect(refusalMessage(null, "offline", 0)).toBe("offline");
    expect(refusalMessage("Unschedulable", "pool p has no nodes", 0)).toMatch(
      /^The server refused the spec: pool p has no nodes\. Check “Allow pending/,
    );
  });

  it("is the page at /new", () => {
    expect(routeOf("/new")).toEqual({ page: "new" });
  });
});
