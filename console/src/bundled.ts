// The kinds' JSON Schemas (schemas/*.json) and the examples (examples/*.yaml), built into the
// New job page's chunk: the page works offline and from any API version's server, and the
// console's rebuild test notices when a schema or an example changes without a rebuild.
import { jobSchemas, type Schema, templatesOf } from "./newjob";

const schemaFiles = import.meta.glob<Schema>("../../schemas/*.json", { eager: true, import: "default" });
const exampleFiles = import.meta.glob<string>("../../examples/*.yaml", {
  eager: true,
  query: "?raw",
  import: "default",
});

/** `../../schemas/training.json` -> `training.json` */
export function byFileName<T>(files: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(files).map(([path, value]) => [path.split("/").pop()!, value]));
}

export const SCHEMAS = jobSchemas(byFileName(schemaFiles));
export const TEMPLATES = templatesOf(exampleFiles);
