import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Client } from "../api";

type Page = ComponentType<{ client: Client }>;

/** The New job page, fetched when first opened: the editor, the schemas and the templates
 * are a chunk of their own, so the other pages load without them. */
export function LazyNewJob(props: { client: Client }) {
  const [page, setPage] = useState<{ Page: Page } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    import("./NewJob").then(
      (loaded) => setPage({ Page: loaded.NewJobPage }),
      (failure: unknown) => setProblem(`the editor did not load: ${String(failure)}`),
    );
  }, []);
  if (problem) {
    return (
      <p class="problem" role="alert">
        {problem}
      </p>
    );
  }
  return page ? <page.Page client={props.client} /> : <p class="hint">Loading the editor…</p>;
}
