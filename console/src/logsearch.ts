// Search within the followed log: every occurrence of the words looked for (case does not
// matter), as the log pane highlights them and next/previous walk through them.

export interface Occurrence {
  line: number;
  start: number;
}

export interface Segment {
  text: string;
  /** the index of the occurrence among all of the log's, or null for text between them */
  occurrence: number | null;
}

/** Every occurrence of `query` in `lines`, in reading order; none for an empty query. */
export function occurrences(lines: readonly string[], query: string): Occurrence[] {
  const found: Occurrence[] = [];
  const wanted = query.toLowerCase();
  if (!wanted) return found;
  lines.forEach((line, index) => {
    const text = line.toLowerCase();
    for (let at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + wanted.length)) {
      found.push({ line: index, start: at });
    }
  });
  return found;
}

/** One line cut into plain text and its occurrences; `first` is the index of the line's
 * first occurrence among all (from `occurrences`). */
export function segments(line: string, query: string, first: number): Segment[] {
  if (!query) return [{ text: line, occurrence: null }];
  const parts: Segment[] = [];
  const text = line.toLowerCase();
  const wanted = query.toLowerCase();
  let from = 0;
  let index = first;
  for (let at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + wanted.length)) {
    if (at > from) parts.push({ text: line.slice(from, at), occurrence: null });
    parts.push({ text: line.slice(at, at + wanted.length), occurrence: index });
    index += 1;
    from = at + wanted.length;
  }
  if (from < line.length) parts.push({ text: line.slice(from), occurrence: null });
  return parts;
}

/** The next (step 1) or previous (step -1) occurrence, round the ends. */
export function stepped(current: number, step: 1 | -1, count: number): number {
  if (count === 0) return 0;
  return (((current + step) % count) + count) % count;
}
