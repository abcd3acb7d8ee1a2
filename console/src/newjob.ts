// The New job page's pure parts: which JSON Schema checks a document (its `kind:`), what is
// wrong in it and where (as text offsets), what may be typed at a place, where a server's
// `file:line:col` problem lies, and the examples offered as templates. No editor here: the
// editor (CodeMirror) is loaded on the New job page only and calls these.
import { type OutputUnit, Validator } from "@cfworker/json-schema";
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";

/** The kinds a user creates with POST /jobs (pools and quotas are an admin's, elsewhere). */
export const JOB_KINDS = ["training", "inference", "notebook", "compute"] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export type Schema = { [key: string]: unknown };

/** One thing wrong, from `from` to `to` (offsets in the text). */
export interface Finding {
  from: number;
  to: number;
  message: string;
}

const COMMON_REF = "common.json#/$defs/";

/** A kind's schema with the shared definitions it refers to (`common.json#/$defs/x`) copied
 * into its own `$defs`, so that it stands alone. */
export function standalone(kindSchema: Schema, common: Schema): Schema {
  const rewritten = JSON.parse(
    JSON.stringify(kindSchema).split(`"${COMMON_REF}`).join('"#/$defs/'),
  ) as Schema;
  const own = (rewritten.$defs ?? {}) as Schema;
  return { ...rewritten, $defs: { ...(common.$defs as Schema), ...own } };
}

/** The standalone schema of each job kind, from the schema files by name (`training.json`). */
export function jobSchemas(files: Record<string, Schema>): Map<JobKind, Schema> {
  const common = files["common.json"];
  const found = new Map<JobKind, Schema>();
  for (const kind of JOB_KINDS) {
    const own = files[`${kind}.json`];
    if (own && common) found.set(kind, standalone(own, common));
  }
  return found;
}

/** The schema that checks `text`: its `kind:`'s, or null (no kind, or not a job kind). */
export function schemaFor(text: string, schemas: Map<JobKind, Schema>): Schema | null {
  const kind = parseDocument(text).get("kind");
  return typeof kind === "string" ? (schemas.get(kind as JobKind) ?? null) : null;
}

/** Everything wrong in `text`: YAML syntax first; then a kind that is missing or unknown;
 * then what the kind's schema says, each at the field it is about. */
export function findings(text: string, schemas: Map<JobKind, Schema>): Finding[] {
  if (text.trim() === "") return [];
  const document = parseDocument(text, { prettyErrors: false });
  if (document.errors.length > 0) {
    return document.errors.map((error) => ({
      from: error.pos[0],
      to: Math.max(error.pos[1], error.pos[0] + 1),
      message: error.message.split("\n")[0],
    }));
  }
  const kind = document.get("kind", true);
  const kinds = JOB_KINDS.join(", ");
  if (!isScalar(kind) || typeof kind.value !== "string") {
    return [{ from: 0, to: Math.min(text.length, 1), message: `kind: missing (one of ${kinds})` }];
  }
  const schema = schemas.get(kind.value as JobKind);
  if (!schema) {
    const [from, to] = span(kind);
    return [{ from, to, message: `kind: '${kind.value}' is not a job kind (one of ${kinds})` }];
  }
  const result = new Validator(schema, "2020-12", false).validate(document.toJS());
  const found = withoutAlternatives(result.errors).flatMap((error) =>
    explained(error, document.contents, schema),
  );
  return found.filter((f, n) => found.findIndex((g) => g.from === f.from && g.message === f.message) === n);
}

/** A value that matches none of a oneOf's alternatives is one problem, not one per
 * alternative: the oneOf's own error stands for the errors under it at the same place. */
function withoutAlternatives(errors: OutputUnit[]): OutputUnit[] {
  const chosen = new Set(
    errors.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf").map((e) => e.instanceLocation),
  );
  return errors.filter(
    (e) => e.keyword === "oneOf" || e.keyword === "anyOf" || !chosen.has(e.instanceLocation),
  );
}

// Errors that only say "something below me failed": the failure below is reported instead.
const WRAPPERS = new Set([
  "properties",
  "$ref",
  "allOf",
  "items",
  "prefixItems",
  "false",
  "if",
  "then",
  "else",
]);

function explained(error: OutputUnit, root: Node | null, schema: Schema): Finding[] {
  if (WRAPPERS.has(error.keyword)) return [];
  const path = pathOf(error.instanceLocation);
  const dotted = path.join(".") || "(document)";
  if (error.keyword === "additionalProperties") {
    const name = /Property "([^"]*)"/.exec(error.error)?.[1];
    if (name === undefined) return [];
    const [from, to] = span(keyAt(root, path, name) ?? nodeAt(root, path));
    const field = [...path, name].join(".");
    return [{ from, to, message: `${field}: this field is not allowed here` }];
  }
  const node = nodeAt(root, path);
  const [from, to] = span(node);
  const hint = hintAt(schema, path);
  const value = isScalar(node) ? node.value : undefined;
  return [{ from, to, message: `${dotted}: ${plain(error, value)}${hint ? ` (${hint})` : ""}` }];
}

const ARTICLE: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "text",
  boolean: "true or false",
  object: "a mapping",
  array: "a list",
};

/** A validator's message in the words the CLI uses. */
function plain(error: OutputUnit, value: unknown): string {
  const shown = typeof value === "string" ? `text '${value}'` : JSON.stringify(value);
  const required = /Instance does not have required property "([^"]*)"/.exec(error.error);
  if (required) return `'${required[1]}' is required`;
  const expected = /Expected "([^"]*)"/.exec(error.error)?.[1];
  if (error.keyword === "type" && expected) return `expected ${ARTICLE[expected] ?? expected}, got ${shown}`;
  const allowed = /any of (\[.*\])\.?$/.exec(error.error)?.[1];
  if (error.keyword === "enum" && allowed) {
    const values = (JSON.parse(allowed) as unknown[]).map(String).join(", ");
    return `${shown} is not one of ${values}`;
  }
  if (["pattern", "oneOf", "anyOf", "format"].includes(error.keyword)) return `${shown} is not valid`;
  return error.error.replace(/^Instance /, "value ").replace(/\.$/, "");
}

/** `#/resources/gpu` -> ["resources", "gpu"]; list indexes stay strings. */
export function pathOf(pointer: string): string[] {
  const bare = pointer.replace(/^#/, "");
  if (bare === "" || bare === "/") return [];
  return bare
    .slice(1)
    .split("/")
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"));
}

function nodeAt(root: Node | null, path: string[]): Node | null {
  let node: unknown = root;
  let last: Node | null = root;
  for (const part of path) {
    if (isMap(node))
      node = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === part)?.value;
    else if (isSeq(node)) node = node.items[Number(part)];
    else return last;
    if (!node) return last;
    last = node as Node;
  }
  return last;
}

function keyAt(root: Node | null, path: string[], name: string): Node | null {
  const owner = nodeAt(root, path);
  if (!isMap(owner)) return null;
  const pair = owner.items.find(
    (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === name,
  );
  return pair && isScalar(pair.key) ? pair.key : null;
}

function span(node: Node | null): [number, number] {
  const range = node?.range;
  if (!range) return [0, 1];
  // a map or list spans many lines: mark its first line's start only
  const end = isMap(node) || isSeq(node) ? range[0] + 1 : range[1];
  return [range[0], Math.max(end, range[0] + 1)];
}

/** The schema of the value at `path` (following `$ref`, `properties`, `items`). */
export function schemaAt(schema: Schema, path: string[]): Schema | null {
  let here: Schema | null = resolved(schema, schema);
  for (const part of path) {
    if (!here) return null;
    const properties = here.properties as Record<string, Schema> | undefined;
    const next: Schema | undefined =
      properties?.[part] ?? (/^\d+$/.test(part) ? (here.items as Schema | undefined) : undefined);
    here = next ? resolved(schema, next) : null;
  }
  return here;
}

function resolved(root: Schema, node: Schema): Schema {
  let here = node;
  for (let hops = 0; typeof here.$ref === "string" && hops < 10; hops += 1) {
    const name = here.$ref.replace(/^#\/\$defs\//, "");
    const target = (root.$defs as Record<string, Schema> | undefined)?.[name];
    if (!target) break;
    const { $ref: _, ...rest } = here;
    here = { ...target, ...rest, properties: mergedProperties(target.properties, rest.properties) };
  }
  return here;
}

/** A `$ref`'s properties with the referring schema's own next to them (a field in both: the
 * two merged, e.g. a kind's stricter maxLength for the shared `name`). */
function mergedProperties(shared: unknown, own: unknown): Schema | undefined {
  if (!own) return shared as Schema | undefined;
  const merged: Schema = { ...(shared as Schema | undefined) };
  for (const [name, field] of Object.entries(own as Schema)) {
    merged[name] = { ...(merged[name] as Schema | undefined), ...(field as Schema) };
  }
  return merged;
}

function hintAt(schema: Schema, path: string[]): string {
  const here = schemaAt(schema, path);
  return typeof here?.["x-hint"] === "string" ? here["x-hint"] : "";
}

/** What may be typed at a place: the field names of the mapping being written (those not yet
 * there), or the values an enum or const allows for a field. */
export interface Offer {
  label: string;
  detail: string;
  type: "property" | "enum";
}

/** The offers for a field name in the mapping at `path`, without the names in `present`. */
export function fieldOffers(schema: Schema, path: string[], present: string[]): Offer[] {
  const here = schemaAt(schema, path);
  const properties = (here?.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([name]) => !present.includes(name))
    .map(([name, field]) => ({ label: name, detail: describe(schema, field), type: "property" as const }));
}

/** The offers for the value of the field at `path` (its enum values, or its const). */
export function valueOffers(schema: Schema, path: string[]): Offer[] {
  const here = schemaAt(schema, path);
  if (!here) return [];
  const values = Array.isArray(here.enum) ? here.enum : "const" in here ? [here.const] : [];
  return values.map((value) => ({
    label: String(value),
    detail: describe(schema, here),
    type: "enum" as const,
  }));
}

function describe(root: Schema, field: Schema): string {
  const full = resolved(root, field);
  return typeof full.description === "string" ? full.description : "";
}

/** Where the cursor is in the document's structure: the path of the mapping that holds the
 * line, the field names already in it, and whether a value is being typed (after `key:`). */
export interface Place {
  path: string[];
  present: string[];
  key: string | null; // the field whose value is being typed, or null for a field name
}

/** A line's structure: where its `- ` is (a list item), where its content starts, its field
 * name (`name:`) and what follows it; null for a blank or comment line. */
interface Shape {
  dash: number | null;
  indent: number;
  key: string | null;
  rest: string;
}

function shape(text: string): Shape | null {
  if (text.trim() === "" || text.trimStart().startsWith("#")) return null;
  const match = /^(\s*)(-\s+)?(?:([\w.-]+)\s*:(?:\s+|$))?(.*)$/.exec(text)!;
  const lead = match[1].length;
  const dash = match[2] ? lead : null;
  return { dash, indent: lead + (match[2]?.length ?? 0), key: match[3] ?? null, rest: match[4] };
}

/** The place at line `line` (from 0) whose text before the cursor is `before`: read from the
 * indentation of the lines above, so it works while the document is half typed. */
export function placeAt(lines: string[], line: number, before: string): Place {
  const here = shape(before) ?? { dash: null, indent: before.length, key: null, rest: "" };
  const path: string[] = here.dash === null ? [] : ["0"];
  let bound = here.dash ?? here.indent;
  for (let above = line - 1; above >= 0 && bound > 0; above -= 1) {
    const row = shape(lines[above]);
    if (!row || (row.dash ?? row.indent) >= bound) continue;
    if (row.dash !== null) {
      path.unshift("0"); // inside this list item
      bound = row.dash;
      continue;
    }
    if (row.key !== null && /^(#.*)?$/.test(row.rest)) path.unshift(row.key);
    bound = row.indent;
  }
  const present = presentAt(lines, line, here.indent);
  return { path, present, key: here.key };
}

/** The field names already in the mapping whose fields start at column `indent`. */
function presentAt(lines: string[], line: number, indent: number): string[] {
  const names: string[] = [];
  for (const step of [-1, 1]) {
    for (let at = line + step; at >= 0 && at < lines.length; at += step) {
      const row = shape(lines[at]);
      if (!row) continue;
      const newItem = row.dash !== null && row.dash === indent - 2;
      if ((row.dash ?? row.indent) < indent && !(newItem && step < 0)) break;
      if (newItem && step > 0) break;
      if (row.indent === indent && row.key) names.push(row.key);
      if (newItem) break;
    }
  }
  return names;
}

/** One problem of the server's (`file:line:col: path: message (hint)`), at its place. */
export interface ServerProblem {
  line: number | null; // from 1
  column: number | null; // from 1
  message: string;
}

export function serverProblem(text: string): ServerProblem {
  const match = /^.*?:(\d+)(?::(\d+))?: (.*)$/s.exec(text);
  if (!match) return { line: null, column: null, message: text };
  return { line: Number(match[1]), column: match[2] ? Number(match[2]) : null, message: match[3] };
}

/** A server problem as a finding in `text`: from its column to the end of that word (its
 * whole line without a column); the document's start when it has no line. */
export function serverFinding(text: string, problem: ServerProblem): Finding {
  const counter = new LineCounter();
  counter.addNewLine(0);
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) counter.addNewLine(at + 1);
  const starts = counter.lineStarts;
  if (problem.line === null || problem.line > starts.length) {
    return { from: 0, to: Math.min(1, text.length), message: problem.message };
  }
  const lineStart = starts[problem.line - 1];
  const lineEnd = problem.line < starts.length ? starts[problem.line] - 1 : text.length;
  const from = Math.min(lineStart + Math.max((problem.column ?? 1) - 1, 0), lineEnd);
  const word = /^[^\s:]+/.exec(text.slice(from, lineEnd))?.[0].length ?? 0;
  const to = problem.column === null ? lineEnd : from + word;
  return { from, to: Math.max(to, from + 1), message: problem.message };
}

/** The problems to show for a text: the server's when it named any for this very text (its
 * check is the whole one, and the schema's wording of the same field would list it twice),
 * else the schema's. */
export function preferServer(local: Finding[], server: Finding[]): Finding[] {
  return server.length > 0 ? server : local;
}

/** What the problems box says under the editor: nothing to check in an empty editor; the
 * problems; none found; or, while the server's refusal lists this text's problems above, no
 * second list. */
export function problemsNote(empty: boolean, found: number, serverListed: boolean): string | null {
  if (serverListed) return null;
  if (empty) return "Paste or write a spec, or use a template.";
  return found === 0 ? "No problems found." : null;
}

/** The New job page's checkbox that sends `allowPending=true`. */
export const ALLOW_PENDING_LABEL = "Allow pending (wait for nodes that join)";

/** What the page's alert says above a refusal's problems: how many there are; for
 * Unschedulable (no node could ever hold the job) also that the Allow pending checkbox
 * accepts it, as --allow-pending does on the command line. Without problems: the server's
 * message. */
export function refusalMessage(error: string | null, message: string, problems: number): string {
  const plural = problems > 1 ? "s" : "";
  if (error === "Unschedulable") {
    const why = problems > 0 ? `no node can hold this job (${problems} problem${plural})` : message;
    return (
      `The server refused the spec: ${why}. Check “${ALLOW_PENDING_LABEL}” to create it anyway: ` +
      "it stays Pending until a node that fits joins."
    );
  }
  return problems > 0 ? `The server refused the spec (${problems} problem${plural}):` : message;
}

/** An example file offered as a template. */
export interface Template {
  name: string; // the file name without .yaml
  kind: JobKind;
  text: string;
}

/** The examples whose `kind:` is a job kind, by file name (`../../examples/training.yaml`),
 * sorted by kind then name. */
export function templatesOf(files: Record<string, string>): Template[] {
  const found: Template[] = [];
  for (const [path, text] of Object.entries(files)) {
    const kind = /^kind:\s*["']?([\w-]+)/m.exec(text)?.[1];
    if (!kind || !(JOB_KINDS as readonly string[]).includes(kind)) continue;
    const name = path
      .split("/")
      .pop()!
      .replace(/\.ya?ml$/, "");
    found.push({ name, kind: kind as JobKind, text });
  }
  const order = (t: Template) => JOB_KINDS.indexOf(t.kind);
  return found.sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name));
}
