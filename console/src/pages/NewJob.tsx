import { useEffect, useRef, useState } from "preact/hooks";
import { type Client, createJob, SpecRefused } from "../api";
import { TEMPLATES } from "../bundled";
import { createEditor, type JobEditor } from "../editor";
import {
  ALLOW_PENDING_LABEL,
  type Finding,
  problemsNote,
  refusalMessage,
  type ServerProblem,
  serverFinding,
  serverProblem,
  type Template,
} from "../newjob";
import { go } from "../router";

interface Shown {
  line: number;
  message: string;
}

/** The New job page: a YAML editor that knows the kinds' schemas (completion, problems as
 * you type), the examples as templates, and POST /jobs; the server's refusals on their lines. */
export function NewJobPage(props: { client: Client }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<JobEditor | null>(null);
  const edited = useRef(false); // typed into since the last template (or since empty)
  const [choice, setChoice] = useState(TEMPLATES[0]?.name ?? "");
  const [found, setFound] = useState<Shown[]>([]);
  const [empty, setEmpty] = useState(true);
  const [refusal, setRefusal] = useState<{ message: string; problems: ServerProblem[] } | null>(null);
  const [sending, setSending] = useState(false);
  const [allowPending, setAllowPending] = useState(false);
  const [ready, setReady] = useState(false);
  const confirm = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    if (!host.current) return;
    const made = createEditor(host.current, {
      label: "Job spec (YAML)",
      text: "",
      onFindings: (list, lineOf) => {
        setFound(list.map((f: Finding) => ({ line: lineOf(f.from), message: f.message })));
        setEmpty((editor.current?.text() ?? "").trim() === "");
      },
      onChange: () => {
        edited.current = true;
        setEmpty((editor.current?.text() ?? "").trim() === "");
        // the server's answer was about the text as sent: once edited, the schema checks it
        setRefusal(null);
      },
    });
    editor.current = made;
    setReady(true);
    return () => made.destroy();
  }, []);

  function fill(template: Template) {
    editor.current?.setText(template.text);
    edited.current = false;
    setRefusal(null);
    editor.current?.focus();
  }

  function useTemplate() {
    const template = TEMPLATES.find((t) => t.name === choice);
    if (!template || !editor.current) return;
    if (edited.current && editor.current.text().trim() !== "") confirm.current?.showModal();
    else fill(template);
  }

  async function submit(event: Event) {
    event.preventDefault();
    const current = editor.current;
    if (!current || sending) return;
    const sent = current.text();
    setSending(true);
    setRefusal(null);
    try {
      const created = await createJob(props.client, sent, { allowPending });
      go(`/jobs/${encodeURIComponent(created.jobId)}`);
    } catch (failure) {
      const problems = failure instanceof SpecRefused ? failure.problems.map(serverProblem) : [];
      const message = failure instanceof Error ? failure.message : String(failure);
      const error = failure instanceof SpecRefused ? failure.error : null;
      setRefusal({ message: refusalMessage(error, message, problems.length), problems });
      current.showServer(
        sent,
        problems.map((p) => serverFinding(sent, p)),
      );
    } finally {
      setSending(false);
    }
  }

  return (
    <section aria-labelledby="new-title">
      <h1 id="new-title">New job</h1>
      <div class="template-bar">
        <label class="choice">
          Template
          <select value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}>
            {TEMPLATES.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} ({t.kind})
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={useTemplate} disabled={!ready}>
          Use template
        </button>
      </div>
      <form onSubmit={submit}>
        <p class="hint" id="editor-hint">
          The spec in YAML. Ctrl-Space offers the fields and values that fit where the cursor is; problems are
          marked on their line as you type. Tab leaves the editor.
        </p>
        {refusal && (
          <div class="refusal" role="alert" data-testid="refusal">
            <p class="problem">{refusal.message}</p>
            {refusal.problems.length > 0 && (
              <ul>
                {refusal.problems.map((p, n) => (
                  <li key={n}>
                    {p.line !== null
                      ? `Line ${p.line}${p.column !== null ? `:${p.column}` : ""}: ${p.message}`
                      : p.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        <div ref={host} class="editor" data-testid="editor" />
        <Problems found={found} empty={empty} serverListed={(refusal?.problems.length ?? 0) > 0} />
        <label class="check">
          <input
            type="checkbox"
            checked={allowPending}
            aria-describedby="pending-hint"
            onChange={(e) => setAllowPending((e.target as HTMLInputElement).checked)}
          />
          {ALLOW_PENDING_LABEL}
        </label>
        <p class="hint" id="pending-hint">
          Without it, a job no node could ever hold (a GPU type no node has, more than any node has, a pool
          without nodes, a cap or quota below it) is refused and nothing is created.
        </p>
        {/* not disabled while sending: a disabled button would lose the keyboard's focus */}
        <button type="submit" disabled={!ready} aria-busy={sending}>
          {sending ? "Creating…" : "Create job"}
        </button>
      </form>
      <dialog ref={confirm} aria-labelledby="replace-title">
        <h2 id="replace-title">Replace your text?</h2>
        <p>The editor has text you typed. The template {choice} replaces all of it.</p>
        <div class="actions">
          <button type="button" onClick={() => confirm.current?.close()}>
            Keep my text
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              confirm.current?.close();
              const template = TEMPLATES.find((t) => t.name === choice);
              if (template) fill(template);
            }}
          >
            Replace
          </button>
        </div>
      </dialog>
    </section>
  );
}

/** The problems in the text now, line by line (what the editor marks, for every reader); none
 * while the server's refusal above lists them, so that each problem is listed once. */
function Problems(props: { found: Shown[]; empty: boolean; serverListed: boolean }) {
  const note = problemsNote(props.empty, props.found.length, props.serverListed);
  return (
    <div aria-live="polite" data-testid="problems">
      {note !== null || props.serverListed ? (
        note && <p class="hint">{note}</p>
      ) : (
        <ul class="problems">
          {props.found.map((f, n) => (
            <li key={n}>
              Line {f.line}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
