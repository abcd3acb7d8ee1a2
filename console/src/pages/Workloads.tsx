import { useMemo } from "preact/hooks";
import { AdminApi } from "../admin";
import { useLoaded } from "../adminui";
import type { Client } from "../api";

/** The GPUWorkload controller's workloads (a user: their namespace's), read-only. */
export function WorkloadsPage(props: { client: Client; pollMs?: number }) {
  const api = useMemo(() => AdminApi.of(props.client), [props.client]);
  const { data, problem } = useLoaded(() => api.workloads(), props.pollMs ?? 5000);
  return (
    <section aria-labelledby="workloads-title">
      <h1 id="workloads-title">GPUWorkloads</h1>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {data === null && !problem && <p>Loading GPUWorkloads…</p>}
      {data && !data.installed && <p data-testid="not-installed">{data.message}</p>}
      {data?.installed && data.items.length === 0 && <p>No GPUWorkloads.</p>}
      {data?.installed && data.items.length > 0 && (
        <table class="admin-table">
          <caption class="visually-hidden">GPUWorkloads with their phase, node and message</caption>
          <thead>
            <tr>
              <th scope="col">Workload</th>
              <th scope="col">Model</th>
              <th scope="col">GPUs</th>
              <th scope="col">Phase</th>
              <th scope="col">Node</th>
              <th scope="col">Job</th>
              <th scope="col">Retries</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((row) => (
              <tr key={`${row.namespace}/${row.name}`} data-workload={`${row.namespace}/${row.name}`}>
                <th scope="row">
                  {row.namespace}/{row.name}
                </th>
                <td>{row.modelName}</td>
                <td>{row.gpuCount}</td>
                <td class={`status phase-${row.phase.toLowerCase()}`}>{row.phase}</td>
                <td>{row.node ?? "—"}</td>
                <td>{row.jobName ?? "—"}</td>
                <td>{row.retries}</td>
                <td class="message">{row.message || "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
