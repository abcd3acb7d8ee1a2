import { useMemo, useState } from "preact/hooks";
import { AdminApi, type NodeItem, type PoolItem, capOf, membersOf, namesIn, poolBars } from "../admin";
import { Bar, Confirm, Field, type Outcome, OutcomeLine, outcomeOf, useAllowed, useLists } from "../adminui";
import type { Client } from "../api";

const LISTS = ["pools", "nodes"] as const; // GET /pools and GET /nodes: no request per pool

/** Every pool with its occupancy bars and nodes; admins (as the API says) create and delete
 * pools and move nodes in and out. A user sees the same page with no control. */
export function PoolsPage(props: { client: Client; pollMs?: number }) {
  const api = useMemo(() => AdminApi.of(props.client), [props.client]);
  const admin = useAllowed(api, "pools", "create");
  const { data: lists, problem, reload } = useLists(api, LISTS, props.pollMs ?? 10000);
  const data = lists && { pools: lists.pools ?? [], nodes: lists.nodes ?? [] };
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function act(action: () => Promise<{ message: string }>) {
    setOutcome(await outcomeOf(action));
    reload();
  }

  return (
    <section aria-labelledby="pools-title">
      <h1 id="pools-title">Pools</h1>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <OutcomeLine outcome={outcome} />
      {data === null && !problem && <p>Loading pools…</p>}
      {data && data.pools.length === 0 && <p>No pools yet.</p>}
      {data?.pools.map((pool) => (
        <PoolCard
          key={pool.name}
          pool={pool}
          nodes={data.nodes}
          admin={admin}
          api={api}
          act={act}
        />
      ))}
      {admin && data && <CreatePool nodes={data.nodes} api={api} act={act} />}
    </section>
  );
}

type Act = (action: () => Promise<{ message: string }>) => Promise<void>;

function PoolCard(props: {
  pool: PoolItem;
  nodes: NodeItem[];
  admin: boolean;
  api: AdminApi;
  act: Act;
}) {
  const { pool, api, act } = props;
  const titleId = `pool-${pool.name}`;
  const members = membersOf(pool.name, props.nodes);
  // a pool's record may list nodes the cluster does not have: counted, as GET /pools counts
  const missing = pool.nodeCount - members.length;
  return (
    <section class="card" aria-labelledby={titleId} data-pool={pool.name}>
      <h2 id={titleId}>{pool.name}</h2>
      <p class="hint">
        {pool.description || "No description."} Allows{" "}
        {pool.allowedGpuTypes.length ? pool.allowedGpuTypes.join(", ") : "any GPU type"}; status{" "}
        {pool.status}
        {pool.isolation ? `; ${pool.isolation === "shared" ? "shared (no taint)" : "isolated (its nodes run only its jobs)"}` : ""}.
      </p>
      {poolBars(pool, props.nodes).map((bar) => (
        <Bar key={bar.label} bar={bar} />
      ))}
      <h3>Nodes ({members.length})</h3>
      {missing > 0 && (
        <p class="hint">
          {missing} more listed in the pool's record but not in the cluster.
        </p>
      )}
      {members.length === 0 ? (
        <p>No nodes.</p>
      ) : (
        <ul class="nodes" aria-label={`Nodes of ${pool.name}`}>
          {members.map((node) => (
            <li key={node}>
              {node}{" "}
              {props.admin && (
                <button
                  type="button"
                  aria-label={`Remove ${node} from ${pool.name}`}
                  onClick={() => act(() => api.removeNode(pool.name, node))}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {props.admin && (
        <div class="actions-row">
          <SetCap pool={pool.name} cap={pool.gpuCap} api={api} act={act} />
          <AddNodes pool={pool.name} api={api} act={act} />
          <Confirm
            id={`delete-${pool.name}`}
            label={`Delete pool ${pool.name}`}
            title={`Delete pool ${pool.name}?`}
            onConfirm={() => act(() => api.deletePool(pool.name))}
          >
            <p>Its record goes, and its label and taint come off its nodes. Jobs on it stay.</p>
          </Confirm>
        </div>
      )}
    </section>
  );
}

function AddNodes(props: { pool: string; api: AdminApi; act: Act }) {
  const [names, setNames] = useState("");
  const [overwrite, setOverwrite] = useState(false);
  const id = `add-${props.pool}`;
  return (
    <form
      class="inline-form"
      aria-label={`Add nodes to ${props.pool}`}
      onSubmit={(e) => {
        e.preventDefault();
        void props.act(() => props.api.addNodes(props.pool, namesIn(names), overwrite));
        setNames("");
      }}
    >
      <Field id={id} label={`Nodes to add to ${props.pool}`} value={names} onInput={setNames} required />
      <label class="choice">
        <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite((e.target as HTMLInputElement).checked)} />
        Move from another pool
      </label>
      <button type="submit">Add nodes</button>
    </form>
  );
}

function SetCap(props: { pool: string; cap: number | null; api: AdminApi; act: Act }) {
  const [text, setText] = useState(props.cap === null ? "" : String(props.cap));
  const id = `cap-${props.pool}`;
  return (
    <form
      class="inline-form"
      aria-label={`Set the GPU cap of ${props.pool}`}
      onSubmit={(e) => {
        e.preventDefault();
        const input = (e.currentTarget as HTMLFormElement).elements.namedItem("maxGpus") as HTMLInputElement;
        const cap = input.validity.badInput ? undefined : capOf(text);
        void props.act(async () => {
          if (cap === undefined) throw new Error(`the GPU cap of ${props.pool} must be a whole number (empty: no cap); nothing was changed`);
          return props.api.setCap(props.pool, cap);
        });
      }}
    >
      <div class="field">
        <label for={id}>GPU cap of {props.pool}</label>
        <input
          id={id}
          name="maxGpus"
          type="number"
          min={0}
          step={1}
          value={text}
          placeholder="no cap"
          aria-describedby={`${id}-hint`}
          onInput={(e) => setText((e.target as HTMLInputElement).value)}
        />
        <span class="hint" id={`${id}-hint`}>
          empty: no cap
        </span>
      </div>
      <button type="submit">Set cap</button>
    </form>
  );
}

function CreatePool(props: { nodes: NodeItem[]; api: AdminApi; act: Act }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState("");
  const [cap, setCap] = useState("");
  const [nodes, setNodes] = useState("");
  const [isolation, setIsolation] = useState<"isolated" | "shared">("isolated");
  const free = props.nodes.filter((node) => node.boundPools.length === 0).map((node) => node.nodeName);

  function submit(e: Event) {
    e.preventDefault();
    const pool = {
      name: name.trim(),
      description,
      nodes: namesIn(nodes),
      gpuType: namesIn(types),
      isolation,
      ...(cap.trim() ? { maxGpus: Number(cap) } : {}),
    };
    void props.act(() => props.api.createPool(pool));
  }

  return (
    <section class="card" aria-labelledby="create-pool-title">
      <h2 id="create-pool-title">Create a pool</h2>
      <form class="grid-form" onSubmit={submit}>
        <Field id="pool-name" label="Name" value={name} onInput={setName} required hint="a DNS label, e.g. tuning-pool" />
        <Field id="pool-description" label="Description" value={description} onInput={setDescription} />
        <Field id="pool-types" label="GPU types" value={types} onInput={setTypes} hint="comma-separated; empty allows any" />
        <Field id="pool-cap" label="GPU cap" type="number" value={cap} onInput={setCap} hint="empty: no cap" />
        <Field
          id="pool-nodes"
          label="Nodes"
          value={nodes}
          onInput={setNodes}
          hint={free.length ? `in no pool: ${free.join(", ")}` : "every node is in a pool"}
        />
        <div class="field">
          <label for="pool-isolation">Isolation</label>
          <select id="pool-isolation" value={isolation} onChange={(e) => setIsolation((e.target as HTMLSelectElement).value as "isolated" | "shared")}>
            <option value="isolated">isolated (only its jobs on its nodes)</option>
            <option value="shared">shared (no taint)</option>
          </select>
        </div>
        <button type="submit">Create pool</button>
      </form>
    </section>
  );
}
