import { useMemo, useState } from "preact/hooks";
import { AdminApi, type QuotaItem, quotaBar, quotaSpec } from "../admin";
import { Bar, Confirm, Field, type Outcome, OutcomeLine, outcomeOf, useAllowed, useLists } from "../adminui";
import type { Client } from "../api";

const SHOWN = ["gpu", "cpu", "memory"] as const;
const LISTS = ["quotas"] as const;

/** Quotas with their used/hard bars (a user: their own); admins (as the API says) create a
 * user's quota and delete one. */
export function QuotasPage(props: { client: Client; pollMs?: number }) {
  const api = useMemo(() => AdminApi.of(props.client), [props.client]);
  const admin = useAllowed(api, "quotas", "create");
  const { data: lists, problem, reload } = useLists(api, LISTS, props.pollMs ?? 10000);
  const data = lists && (lists.quotas ?? []);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  async function act(action: () => Promise<{ message: string }>) {
    setOutcome(await outcomeOf(action));
    reload();
  }

  return (
    <section aria-labelledby="quotas-title">
      <h1 id="quotas-title">Quotas</h1>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <OutcomeLine outcome={outcome} />
      {data === null && !problem && <p>Loading quotas…</p>}
      {data && data.length === 0 && <p>No quotas.</p>}
      {data?.map((quota) => (
        <QuotaCard
          key={`${quota.userName}/${quota.name}`}
          quota={quota}
          admin={admin}
          onDelete={() => act(() => api.deleteQuota(quota.userName))}
        />
      ))}
      {admin && <CreateQuota api={api} act={act} />}
    </section>
  );
}

function QuotaCard(props: { quota: QuotaItem; admin: boolean; onDelete: () => void }) {
  const { quota } = props;
  const titleId = `quota-${quota.userName}-${quota.name}`;
  return (
    <section class="card" aria-labelledby={titleId} data-quota={quota.userName}>
      <h2 id={titleId}>
        {quota.userName} <span class="hint">({quota.name})</span>
      </h2>
      {SHOWN.map((resource) => {
        const usage = quota[resource];
        return usage ? <Bar key={resource} bar={quotaBar(quota.userName, resource, usage)} /> : null;
      })}
      {props.admin && (
        <Confirm
          id={`delete-quota-${quota.userName}-${quota.name}`}
          label={`Delete quota of ${quota.userName}`}
          title={`Delete ${quota.userName}'s quotas?`}
          onConfirm={props.onDelete}
        >
          <p>Their namespace and jobs stay; nothing limits them any more.</p>
        </Confirm>
      )}
    </section>
  );
}

function CreateQuota(props: {
  api: AdminApi;
  act: (action: () => Promise<{ message: string }>) => Promise<void>;
}) {
  const [name, setName] = useState("");
  const [user, setUser] = useState("");
  const [gpu, setGpu] = useState("");
  const [cpu, setCpu] = useState("");
  const [memory, setMemory] = useState("");
  return (
    <section class="card" aria-labelledby="create-quota-title">
      <h2 id="create-quota-title">Create a quota</h2>
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          const spec = quotaSpec(name.trim() || `${user.trim()}-quota`, user.trim(), gpu, cpu, memory);
          void props.act(() => props.api.createQuota(spec));
        }}
      >
        <Field id="quota-user" label="User" value={user} onInput={setUser} required hint="their namespace" />
        <Field id="quota-name" label="Quota name" value={name} onInput={setName} hint="empty: USER-quota" />
        <Field id="quota-gpu" label="GPUs" type="number" value={gpu} onInput={setGpu} />
        <Field id="quota-cpu" label="CPU" value={cpu} onInput={setCpu} hint="cores, e.g. 16" />
        <Field id="quota-memory" label="Memory" value={memory} onInput={setMemory} hint="e.g. 64Gi" />
        <button type="submit">Create quota</button>
      </form>
    </section>
  );
}
