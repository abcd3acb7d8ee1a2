// How the console writes times and counts.

/** A job's age as kubectl writes it: 45s, 12m, 3h, 5d. */
export function age(created: string | null, now: number): string {
  if (!created) return "-";
  const seconds = Math.max(0, Math.floor((now - Date.parse(created)) / 1000));
  if (Number.isNaN(seconds)) return "-";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

/** A status word of the API (`partially-running`) as a heading writes it. */
export function statusLabel(word: string): string {
  const spaced = word.replace(/-/g, " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** A job's GPUs as a list or summary writes them: `2 × A100`; a gpu-share job, which asks
 * for part of one GPU's memory and no whole GPU, its share: `20Gi shared` (`on A10` when it
 * names a type); `0` for a CPU-only job. */
export function gpusShown(job: { gpu: number; gpuShare: string | null; gpuType: string | null }): string {
  const type = job.gpuType;
  if (job.gpu > 0) return `${job.gpu}${type ? ` × ${type}` : ""}`;
  if (job.gpuShare) return `${job.gpuShare} shared${type ? ` on ${type}` : ""}`;
  return "0";
}

/** A time as a page shows it: the reader's local date and time and how long ago (`3m ago`);
 * `title` is the time as the API gave it (ISO 8601, UTC), for a tooltip. */
export function whenShown(iso: string | null, now: number): { text: string; title: string } {
  const at = iso ? Date.parse(iso) : Number.NaN;
  if (!iso || Number.isNaN(at)) return { text: "-", title: "" };
  const local = new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return { text: `${local} (${age(iso, now)} ago)`, title: iso };
}

/** An image name cut where a line may break: after each `/`, `:` and `@` (registry, path,
 * tag, digest), never inside a word. */
export function imageParts(image: string): string[] {
  return image.split(/(?<=[/:@])/).filter((part) => part !== "");
}

/** Whether a job may have logs to follow: one of its pods has started (its start time), or it
 * is past waiting (running, finished, failed). A pending or queued job whose pods never
 * started has none. */
export function logsMayExist(job: { status: string; startedAt: string | null }): boolean {
  return job.startedAt !== null || !["pending", "queued"].includes(job.status);
}
