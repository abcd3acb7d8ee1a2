// The rows of a long table that are drawn: those in view and `overscan` more on each side,
// with the height of the rows left out above and below (spacer rows keep the scroll bar
// true). 1,000 jobs draw some forty rows.
export interface Window {
  first: number;
  last: number; // exclusive
  above: number; // px
  below: number; // px
}

export function visibleRows(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan = 10,
): Window {
  const top = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const shown = Math.ceil(viewport / rowHeight) + 2 * overscan;
  const first = Math.min(top, count);
  const last = Math.min(count, first + shown);
  return { first, last, above: first * rowHeight, below: (count - last) * rowHeight };
}
