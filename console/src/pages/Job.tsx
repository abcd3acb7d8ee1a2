import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ComponentChildren, Fragment } from "preact";
import { type Client, type JobDetail, logProtocols, logsUrl, type PodState } from "../api";
import { gpusShown, imageParts, logsMayExist, statusLabel, whenShown } from "../format";
import { occurrences, segments, stepped } from "../logsearch";
import { follow, go } from "../router";
import { Curves } from "./Curves";
import { Rendered } from "./Rendered";

const POLL_MS = 5000;
const CLOCK_MS = 10_000; // the Created age ticks this often, even while the job is unchanged (304)
const MAX_LINES = 5000; // the log pane keeps the last lines only

/** One job: its status and why, pods, the spec as submitted, logs followed live, delete. */
export function JobPage(props: { client: Client; jobId: string }) {
  const [job, setJob] = useState<JobDetail | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    const clock = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(clock);
  }, []);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    async function poll() {
      try {
        const found = await props.client.job(props.jobId);
        if (!stopped) {
          setJob(found);
          setProblem(null);
        }
      } catch (failure) {
        if (!stopped) setProblem(failure instanceof Error ? failure.message : String(failure));
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    }
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.client, props.jobId]);

  return (
    <section aria-labelledby="job-title">
      <p>
        <a href="/" onClick={(e) => follow(e, "/")}>
          ← All jobs
        </a>
      </p>
      <h1 id="job-title">{props.jobId}</h1>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {deleted && (
        <p class="notice" role="status">
          {deleted}
        </p>
      )}
      {job && <Summary job={job} now={now} />}
      {job && <Delete client={props.client} jobId={props.jobId} onDeleted={setDeleted} />}
      {job && <Curves client={props.client} jobId={props.jobId} />}
      {job &&
        (logsMayExist(job) ? (
          <Logs token={props.client.token} jobId={props.jobId} pods={job.k8sResources.pods} />
        ) : (
          <>
            <h2>Logs</h2>
            <p class="hint" data-testid="no-logs">
              No logs yet: the job's pods have not started.
            </p>
          </>
        ))}
      {job && <Spec job={job} />}
      {job && <Rendered client={props.client} jobId={props.jobId} />}
    </section>
  );
}

function Summary(props: { job: JobDetail; now: number }) {
  const { job } = props;
  const created = whenShown(job.createdAt, props.now);
  const rows: [string, ComponentChildren][] = [
    ["Status", statusLabel(job.status)],
    ["Kind", job.kind],
    ["Pool", job.pool],
    ["Ready", job.ready],
    ["GPUs", gpusShown(job)],
    ["Image", <ImageName image={job.image} />],
    [
      "Created",
      <time dateTime={job.createdAt ?? undefined} title={created.title}>
        {created.text}
      </time>,
    ],
  ];
  if (job.access) rows.push(["Access", job.access]);
  return (
    <>
      <dl class="summary" data-testid="summary">
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd data-field={name.toLowerCase()}>{value}</dd>
          </div>
        ))}
      </dl>
      <h2>Why</h2>
      <p class="why" data-testid="why">
        {job.why || "Nothing to report."}
      </p>
      <h2>Pods</h2>
      {job.k8sResources.pods.length === 0 ? (
        <p>No pods yet.</p>
      ) : (
        <ul data-testid="pods">
          {podsOf(job).map((pod) => (
            <li key={pod.name} data-pod={pod.name}>
              <code>{pod.name}</code>: {podWords(pod)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** An image name in monospace, its whole name as the title, with line breaks allowed after
 * `/` `:` `@` only (a word is cut only when one part is wider than the column). */
function ImageName(props: { image: string }) {
  return (
    <code class="image" title={props.image}>
      {imageParts(props.image).map((part, n) => (
        <Fragment key={n}>
          {n > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </code>
  );
}

/** The job's pods with their status, readiness and node (names only from an older server). */
function podsOf(job: JobDetail): PodState[] {
  const known = new Map((job.k8sResources.podStates ?? []).map((pod) => [pod.name, pod]));
  return job.k8sResources.pods.map(
    (name) => known.get(name) ?? { name, status: "", ready: "", node: null, restarts: 0 },
  );
}

/** `Running, 1/1 ready, on gpu-a100-0` (`not on a node yet` while unplaced). */
export function podWords(pod: PodState): string {
  if (!pod.status) return "status unknown";
  const restarts = pod.restarts > 0 ? `, ${pod.restarts} restart${pod.restarts > 1 ? "s" : ""}` : "";
  const where = pod.node ? `on ${pod.node}` : "not on a node yet";
  return `${pod.status}, ${pod.ready} ready, ${where}${restarts}`;
}

function Spec(props: { job: JobDetail }) {
  return (
    <>
      <h2>Spec as submitted</h2>
      {props.job.yamlContent ? (
        <pre class="code" data-testid="spec" tabIndex={0} aria-label="The job's YAML spec">
          {props.job.yamlContent}
        </pre>
      ) : (
        <p>{props.job.yamlContentNote ?? "This job was made without a gpuctl spec."}</p>
      )}
    </>
  );
}

function Delete(props: { client: Client; jobId: string; onDeleted: (message: string) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [problem, setProblem] = useState<string | null>(null);

  async function confirmed() {
    try {
      const answer = await props.client.deleteJob(props.jobId);
      dialog.current?.close();
      props.onDeleted(answer.message);
      setTimeout(() => go("/"), 1500);
    } catch (failure) {
      setProblem(failure instanceof Error ? failure.message : String(failure));
    }
  }

  return (
    <>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        Delete job
      </button>
      <dialog ref={dialog} aria-labelledby="delete-title">
        <h2 id="delete-title">Delete {props.jobId}?</h2>
        <p>Its workload, its pods and what was made with it are deleted. This cannot be undone.</p>
        {problem && (
          <p class="problem" role="alert">
            {problem}
          </p>
        )}
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="danger" onClick={confirmed}>
            Delete
          </button>
        </div>
      </dialog>
    </>
  );
}

/** The job's logs, followed over the WebSocket (the token in its subprotocol), from all pods
 * or the one chosen; the stream starts again when the choice changes. */
function Logs(props: { token: string; jobId: string; pods: string[] }) {
  const [pod, setPod] = useState<string>("");
  const [lines, setLines] = useState<string[]>([]);
  const [state, setState] = useState("connecting");
  const [query, setQuery] = useState("");
  const [current, setCurrent] = useState(0);
  const pane = useRef<HTMLPreElement>(null);
  const found = useMemo(() => occurrences(lines, query), [lines, query]);

  function step(direction: 1 | -1) {
    setCurrent((at) => stepped(at, direction, found.length));
  }

  // a new search starts at its first occurrence; the one shown is scrolled into view
  useEffect(() => setCurrent(0), [query]);
  useEffect(() => {
    pane.current?.querySelector("mark.current")?.scrollIntoView?.({ block: "nearest" });
  }, [current, query]);

  // new lines keep the pane at its end, unless the reader scrolled up to read or searches
  useEffect(() => {
    const shown = pane.current;
    if (shown && !query && shown.scrollHeight - shown.scrollTop - shown.clientHeight < 80) {
      shown.scrollTop = shown.scrollHeight;
    }
  }, [lines]);

  useEffect(() => {
    setLines([]);
    setState("connecting");
    const socket = new WebSocket(logsUrl(location, props.jobId, pod || null), logProtocols(props.token));
    socket.onopen = () => setState("following");
    socket.onmessage = (event) =>
      setLines((kept) => [...kept, String(event.data)].slice(-MAX_LINES));
    socket.onclose = (event) =>
      setState(event.code === 1008 ? `refused: ${event.reason}` : "ended");
    return () => socket.close();
  }, [props.token, props.jobId, pod]);

  return (
    <>
      <h2>Logs</h2>
      <div class="log-bar">
        <label class="choice">
          Pod
          <select name="pod" value={pod} onChange={(e) => setPod((e.target as HTMLSelectElement).value)}>
            <option value="">all pods</option>
            {props.pods.map((name) => (
              <option value={name} key={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <span data-testid="log-state" role="status">
          {state}
        </span>
      </div>
      <LogSearch query={query} onQuery={setQuery} count={found.length} current={current} onStep={step} />
      <pre ref={pane} class="code logs" role="log" aria-label="Log lines" tabIndex={0} data-testid="logs">
        {query ? <Highlighted lines={lines} query={query} current={current} /> : lines.join("\n")}
      </pre>
    </>
  );
}

/** The search box of the log: the count of occurrences, and next/previous (also Enter and
 * Shift+Enter in the box). */
function LogSearch(props: {
  query: string;
  onQuery: (query: string) => void;
  count: number;
  current: number;
  onStep: (direction: 1 | -1) => void;
}) {
  const told = props.query
    ? props.count === 0
      ? "no match"
      : `${props.current + 1} of ${props.count} ${props.count === 1 ? "match" : "matches"}`
    : "";
  return (
    <form class="log-search" role="search" aria-label="Search the log" onSubmit={(e) => e.preventDefault()}>
      <label class="choice">
        Find in log
        <input
          type="search"
          name="log-search"
          value={props.query}
          onInput={(e) => props.onQuery((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              props.onStep(e.shiftKey ? -1 : 1);
            }
          }}
        />
      </label>
      <button type="button" onClick={() => props.onStep(-1)} disabled={props.count === 0}>
        Previous
      </button>
      <button type="button" onClick={() => props.onStep(1)} disabled={props.count === 0}>
        Next
      </button>
      <span role="status" data-testid="log-matches">
        {told}
      </span>
    </form>
  );
}

/** The log's lines with each occurrence marked, the current one apart. */
export function Highlighted(props: { lines: string[]; query: string; current: number }) {
  let first = 0;
  return (
    <>
      {props.lines.map((line, index) => {
        const parts = segments(line, props.query, first);
        first += parts.filter((part) => part.occurrence !== null).length;
        return (
          <span key={index}>
            {parts.map((part, at) =>
              part.occurrence === null ? (
                part.text
              ) : (
                <mark key={at} class={part.occurrence === props.current ? "current" : undefined}>
                  {part.text}
                </mark>
              ),
            )}
            {index < props.lines.length - 1 ? "\n" : ""}
          </span>
        );
      })}
    </>
  );
}
