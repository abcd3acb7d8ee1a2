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
