// The YAML editor of the New job page (CodeMirror 6), loaded with that page only (its own
// chunk). It lives in a shadow root: there CodeMirror puts its styles in a constructed style
// sheet, which the console's Content-Security-Policy (style-src 'self', no inline <style>)
// allows; on the document itself it would add a <style> element, which the CSP refuses.
// Tab is not bound (no indentWithTab): it moves the focus on, as everywhere on the page.
import {
  autocompletion,
  type Completion,
  type CompletionContext,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { type Diagnostic, linter, lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { EditorState, type Text } from "@codemirror/state";
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { SCHEMAS } from "./bundled";
import {
  type Finding,
  fieldOffers,
  findings,
  preferServer,
  JOB_KINDS,
  placeAt,
  type Schema,
  schemaFor,
  valueOffers,
} from "./newjob";

export interface JobEditor {
  text(): string;
  /** Replace the whole text (a template). */
  setText(text: string): void;
  /** The server's problems with the text as it was sent; shown until the text changes. */
  showServer(sent: string, found: Finding[]): void;
  focus(): void;
  destroy(): void;
}

export interface EditorOptions {
  label: string;
  text: string;
  /** Every time the problems shown change (after a pause in typing). */
  onFindings: (found: Finding[], lineOf: (offset: number) => number) => void;
  onChange: () => void;
}

const LINT_DELAY_MS = 300;

export function createEditor(host: HTMLElement, options: EditorOptions): JobEditor {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  let server: { doc: Text | null; found: Finding[] } = { doc: null, found: [] };

  /** What is wrong with `doc`: while the text is the one sent and the server named problems,
   * the server's (its answer is the whole check: the schema's wording of the same fields would
   * list them twice); else the schema's findings. Told to the page too. */
  function diagnose(doc: Text): Diagnostic[] {
    const local = findings(doc.toString(), SCHEMAS);
    const found = preferServer(local, server.doc === doc ? server.found : []);
    options.onFindings(found, (offset) => doc.lineAt(Math.min(offset, doc.length)).number);
    return found.map((f): Diagnostic => ({ ...clamp(f, doc.length), severity: "error", message: f.message }));
  }

  const problems = linter((view) => diagnose(view.state.doc), { delay: LINT_DELAY_MS });

  const view = new EditorView({
    root: shadow,
    parent: shadow,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        lineNumbers(),
        highlightActiveLine(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle),
        yaml(),
        autocompletion({ override: [complete], activateOnTyping: true }),
        problems,
        lintGutter(),
        keymap.of([...completionKeymap, ...lintKeymap, ...historyKeymap, ...defaultKeymap]),
        EditorView.contentAttributes.of({ "aria-label": options.label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange();
        }),
        EditorView.lineWrapping,
        theme,
      ],
    }),
  });

  return {
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    showServer(sent, found) {
      if (view.state.doc.toString() !== sent) return;
      server = { doc: view.state.doc, found };
      view.dispatch(setDiagnostics(view.state, diagnose(view.state.doc)));
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  };
}

function clamp(found: Finding, length: number): { from: number; to: number } {
  const from = Math.min(found.from, length);
  return { from, to: Math.min(Math.max(found.to, from), length) };
}

/** Field names and enum values that fit where the cursor is (from the kind's schema). */
export function complete(context: CompletionContext) {
  const line = context.state.doc.lineAt(context.pos);
  const before = line.text.slice(0, context.pos - line.from);
  const word = context.matchBefore(/[\w.-]*/);
  if (!context.explicit && (!word || word.from === word.to)) return null;
  const lines = context.state.doc.toString().split("\n");
  const place = placeAt(lines, line.number - 1, before);
  const schema: Schema | null = schemaFor(context.state.doc.toString(), SCHEMAS);
  const from = word ? word.from : context.pos;
  if (place.key !== null) {
    if (place.key === "kind" && place.path.length === 0) {
      return { from, options: JOB_KINDS.map((kind) => ({ label: kind, type: "enum" })) };
    }
    if (!schema) return null;
    const offers = valueOffers(schema, [...place.path, place.key]);
    return {
      from,
      options: offers.map((o): Completion => ({ label: o.label, detail: o.detail, type: "enum" })),
    };
  }
  if (!schema) {
    return place.path.length === 0
      ? { from, options: [{ label: "kind", apply: "kind: ", type: "property" }] }
      : null;
  }
  const offers = fieldOffers(schema, place.path, place.present);
  return {
    from,
    options: offers.map((o): Completion => ({
      label: o.label,
      detail: o.detail,
      apply: `${o.label}: `,
      type: "property",
    })),
  };
}

const theme = EditorView.theme({
  "&": {
    border: "1px solid #4a5361",
    borderRadius: "4px",
    fontSize: "0.9rem",
    backgroundColor: "#ffffff",
    color: "#1b1f24",
  },
  "&.cm-focused": { outline: "3px solid #0b57d0", outlineOffset: "2px" },
  // the editor grows with its text (the page scrolls) and wraps long lines: a region that
  // scrolls on its own would need a Tab stop of its own to be scrolled with the keyboard
  ".cm-scroller": { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace' },
  ".cm-content, .cm-gutter": { minHeight: "12rem" },
  ".cm-gutters": { backgroundColor: "#f4f6f8", color: "#4a5361", borderRight: "1px solid #d4d9e0" },
  ".cm-activeLine": { backgroundColor: "#eef3fd" },
  ".cm-tooltip": { fontSize: "0.9rem" },
  ".cm-diagnostic-error": { borderLeftColor: "#a40e26", color: "#1b1f24" },
});
