import { useRef, useState } from "preact/hooks";
import type { Client, JobManifests } from "../api";

/** "What it rendered to": the Kubernetes objects the job's spec becomes, asked for when the
 * reader opens the section (one request), each object's YAML in its own block. */
export function Rendered(props: { client: Client; jobId: string }) {
  const [found, setFound] = useState<JobManifests | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [asked, setAsked] = useState(false);
  const once = useRef(false); // two toggle events before a render must still ask once

  function opened(event: Event) {
    if (!(event.currentTarget as HTMLDetailsElement).open || once.current) return;
    once.current = true;
    setAsked(true);
    props.client.jobManifests(props.jobId).then(setFound, (failure: unknown) =>
      setProblem(failure instanceof Error ? failure.message : String(failure)),
    );
  }

  return (
    <section aria-labelledby="rendered-title">
      <h2 id="rendered-title">What it rendered to</h2>
      <details class="rendered" onToggle={opened} data-testid="rendered">
        <summary>Kubernetes manifests</summary>
        {problem && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
        {asked && !found && !problem && <p>Rendering…</p>}
        {found && found.manifests.length === 0 && <p>{found.message}</p>}
        {found?.manifests.map((manifest) => (
          <div key={`${manifest.kind}/${manifest.name}`}>
            <h3>
              {manifest.kind} {manifest.name}
            </h3>
            <pre class="code" tabIndex={0} aria-label={`${manifest.kind} ${manifest.name} as YAML`} data-kind={manifest.kind}>
              {manifest.yaml}
            </pre>
          </div>
        ))}
      </details>
    </section>
  );
}
