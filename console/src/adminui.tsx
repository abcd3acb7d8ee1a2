// What the admin pages share: a bar (a native <meter>: no inline style, so the CSP holds), the
// page's data loaded and polled, the API's say on whether the caller may write, the outcome
// line of an action, and a confirmation dialog.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type AdminApi, type ListName, type Lists, type Occupancy, readLists, wordsOf } from "./admin";

export function Bar(props: { bar: Occupancy }) {
  const { bar } = props;
  return (
    <div class="meter">
      <span class="meter-label">{bar.label}</span>
      <meter
        min={0}
        max={Math.max(bar.total, 1)}
        value={bar.used}
        high={bar.total * 0.9}
        optimum={0}
        aria-label={bar.label}
        aria-valuetext={bar.text}
      />
      <span class="meter-text">{bar.text}</span>
    </div>
  );
}

/** `load()` now, again every `pollMs` and on `reload()`; the last failure's words. */
export function useLoaded<T>(load: () => Promise<T>, pollMs: number) {
  const [data, setData] = useState<T | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [turn, setTurn] = useState(0);
  const reload = useCallback(() => setTurn((n) => n + 1), []);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    async function poll() {
      try {
        const found = await load();
        if (stopped) return;
        setData(found);
        setProblem(null);
      } catch (failure) {
        if (!stopped) setProblem(wordsOf(failure));
      }
      if (!stopped) timer = setTimeout(poll, pollMs);
    }
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [turn]);
  return { data, problem, reload };
}

/** The admin pages' one polling hook: the lists `names` (their list endpoints, one request a
 * list) now, again every `pollMs` and on `reload()`. */
export function useLists(api: AdminApi, names: readonly ListName[], pollMs: number) {
  return useLoaded<Lists>(() => readLists(api, names), pollMs);
}

/** Does the API let the caller do `action` on `resource`? false until it has answered. */
export function useAllowed(api: AdminApi, resource: string, action: string): boolean {
  const [allowed, setAllowed] = useState(false);
  useEffect(() => {
    api.allowed(resource, action).then(setAllowed, () => setAllowed(false));
  }, [api, resource, action]);
  return allowed;
}

export interface Outcome {
  ok: boolean;
  words: string;
}

/** The outcome of the page's last action, read out when it changes. */
export function OutcomeLine(props: { outcome: Outcome | null }) {
  return (
    <p class={props.outcome?.ok === false ? "problem" : "notice"} role="status" data-testid="outcome">
      {props.outcome?.words ?? ""}
    </p>
  );
}

/** An action's outcome: the API's message, or its refusal in its own words. */
export async function outcomeOf(action: () => Promise<{ message: string }>): Promise<Outcome> {
  try {
    return { ok: true, words: (await action()).message };
  } catch (failure) {
    return { ok: false, words: wordsOf(failure) };
  }
}

/** A button that asks first, in a modal dialog (Escape or Cancel: nothing happens). */
export function Confirm(props: {
  id: string;
  label: string;
  title: string;
  children: ComponentChildren;
  onConfirm: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={`${props.id}-title`}>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.children}
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              dialog.current?.close();
              props.onConfirm();
            }}
          >
            {props.label}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A labelled text field. */
export function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  hint?: string;
  required?: boolean;
  type?: string;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={props.type ?? "text"}
        value={props.value}
        required={props.required}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.hint && (
        <span class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  );
}
