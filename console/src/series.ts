// A GPU series as the API answers it ([{timestamp, value}]), in the words and shapes the
// console shows: a text summary (latest, min, max) for every chart, columns for the chart
// library, and the path of a sparkline.

export interface Point {
  timestamp: string;
  value: number;
}

export interface SeriesSummary {
  latest: number;
  min: number;
  max: number;
}

/** latest, min and max of a series; null when it has no point. */
export function summarise(points: readonly Point[]): SeriesSummary | null {
  if (points.length === 0) return null;
  let min = Infinity;
  let max = -Infinity;
  for (const point of points) {
    min = Math.min(min, point.value);
    max = Math.max(max, point.value);
  }
  return { latest: points[points.length - 1].value, min, max };
}

/** A number as the summaries show it: at most one decimal, no trailing zero. */
export function figure(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** "latest 87 %, min 40 %, max 95 %", or that there is no point. */
export function summaryText(points: readonly Point[], unit: string): string {
  const found = summarise(points);
  if (!found) return "no data yet";
  const show = (value: number) => `${figure(value)}${unit ? ` ${unit}` : ""}`;
  return `latest ${show(found.latest)}, min ${show(found.min)}, max ${show(found.max)}`;
}

/** [unix seconds[], values[]]: the columns uPlot draws. */
export function columns(points: readonly Point[]): [number[], number[]] {
  return [points.map((point) => Date.parse(point.timestamp) / 1000), points.map((point) => point.value)];
}

/** The `d` of an SVG path through `values`, scaled into width × height (0 at the bottom;
 * `ceiling` is the top, e.g. 100 for a percentage); one value is a level line, none "". */
export function sparklinePath(values: readonly number[], width: number, height: number, ceiling = 100): string {
  if (values.length === 0) return "";
  if (values.length === 1) return sparklinePath([values[0], values[0]], width, height, ceiling);
  const top = Math.max(ceiling, ...values);
  const step = width / (values.length - 1);
  return values
    .map((value, index) => {
      const x = index * step;
      const y = height - (Math.max(0, value) / top) * height;
      return `${index === 0 ? "M" : "L"}${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(" ");
}
