import { useMemo, useState } from "preact/hooks";
import { AdminApi, type Label, type NodeItem, occupancy } from "../admin";
import { Bar, Field, type Outcome, OutcomeLine, outcomeOf, useAllowed, useLists } from "../adminui";
import type { Client } from "../api";

const LISTS = ["nodes", "labels"] as const; // GET /nodes and GET /nodes/labels/all: no request per node

/** Every node: GPUs used/free, type and vendor, pools and labels; admins (as the API says)
 * set and remove labels, and see the API's refusal of a key it does not let them write. */
export function NodesPage(props: { client: Client; pollMs?: number }) {
  const api = useMemo(() => AdminApi.of(props.client), [props.client]);
  const admin = useAllowed(api, "labels", "create");
  const { data: lists, problem, reload } = useLists(api, LISTS, props.pollMs ?? 10000);
  const data = lists && {
    nodes: lists.nodes ?? [],
    labels: new Map((lists.labels ?? []).map((node) => [node.nodeName, node.gpuLabels])),
  };
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function act(action: () => Promise<{ message: string }>) {
    setOutcome(await outcomeOf(action));
    reload();
  }

  return (
    <section aria-labelledby="nodes-title">
      <h1 id="nodes-title">Nodes</h1>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <OutcomeLine outcome={outcome} />
      {data === null && !problem && <p>Loading nodes…</p>}
      {data && (
        <table class="admin-table">
          <caption class="visually-hidden">Nodes, their GPUs, pools and GPU labels</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Status</th>
              <th scope="col">GPU type</th>
              <th scope="col">Vendor</th>
              <th scope="col">Pools</th>
              <th scope="col">GPUs</th>
              <th scope="col">Free</th>
              <th scope="col">GPU labels</th>
            </tr>
          </thead>
          <tbody>
            {data.nodes.map((node) => (
              <NodeRow
                key={node.nodeName}
                node={node}
                labels={data.labels.get(node.nodeName) ?? []}
                admin={admin}
                onRemove={(key) => act(() => api.removeLabel(node.nodeName, key))}
              />
            ))}
          </tbody>
        </table>
      )}
      {admin && data && <SetLabel nodes={data.nodes.map((n) => n.nodeName)} api={api} act={act} />}
    </section>
  );
}

function NodeRow(props: {
  node: NodeItem;
  labels: Label[];
  admin: boolean;
  onRemove: (key: string) => void;
}) {
  const { node } = props;
  const { labels } = props;
  return (
    <tr data-node={node.nodeName}>
      <th scope="row">{node.nodeName}</th>
      <td>{node.status}</td>
      <td>{node.gpuType ?? "—"}</td>
      <td>{node.vendor ?? "—"}</td>
      <td>{node.boundPools.join(", ") || "none"}</td>
      <td>
        <Bar bar={occupancy(`${node.nodeName}: GPUs`, node.gpuUsed, node.gpuTotal)} />
      </td>
      <td>{node.gpuFree}</td>
      <td class="labels">
        <details>
          <summary>
            {labels.length} {labels.length === 1 ? "label" : "labels"}
          </summary>
          <ul aria-label={`Labels of ${node.nodeName}`}>
            {labels.map((label) => (
              <li key={label.key}>
                <code>
                  {label.key}={label.value}
                </code>{" "}
                {props.admin && label.key.startsWith("g8s.host/") && (
                  <button
                    type="button"
                    aria-label={`Remove label ${label.key} from ${node.nodeName}`}
                    onClick={() => props.onRemove(label.key)}
                  >
                    Remove
                  </button>
                )}
              </li>
            ))}
          </ul>
        </details>
      </td>
    </tr>
  );
}

function SetLabel(props: {
  nodes: string[];
  api: AdminApi;
  act: (action: () => Promise<{ message: string }>) => Promise<void>;
}) {
  const [node, setNode] = useState(props.nodes[0] ?? "");
  const [key, setKey] = useState("g8s.host/");
  const [value, setValue] = useState("");
  const [overwrite, setOverwrite] = useState(false);
  return (
    <section class="card" aria-labelledby="set-label-title">
      <h2 id="set-label-title">Set or remove a label</h2>
      <p class="hint">Only g8s.host/ keys may be written; the API refuses any other key.</p>
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          void props.act(() => props.api.setLabel(node, key.trim(), value.trim(), overwrite));
        }}
      >
        <div class="field">
          <label for="label-node">Node</label>
          <select id="label-node" value={node} onChange={(e) => setNode((e.target as HTMLSelectElement).value)}>
            {props.nodes.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <Field id="label-key" label="Key" value={key} onInput={setKey} required />
        <Field id="label-value" label="Value" value={value} onInput={setValue} />
        <label class="choice">
          <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite((e.target as HTMLInputElement).checked)} />
          Overwrite a different value
        </label>
        <div class="actions-row">
          <button type="submit">Set label</button>
          <button type="button" onClick={() => void props.act(() => props.api.removeLabel(node, key.trim()))}>
            Remove label
          </button>
        </div>
      </form>
    </section>
  );
}
