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
