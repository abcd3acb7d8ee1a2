// The charts' drawing, with uPlot: loaded only by the Job page's curves (a dynamic import,
// its own chunk), so the first page stays small. uPlot sizes its elements through the CSSOM,
// never a style attribute: the console's CSP allows no inline style.
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { columns, type Point } from "./series";

export interface Drawn {
  update(points: readonly Point[], window: TimeWindow): void;
  destroy(): void;
}

/** [start, end] in unix seconds: the time axis shows the whole window asked for, also while
 * the series has one point only. */
export type TimeWindow = [number, number];

const HEIGHT = 180; // px

/** A time chart of one series in `box`, `label` and `unit` on its axis. */
export function draw(
  box: HTMLElement,
  points: readonly Point[],
  label: string,
  unit: string,
  window: TimeWindow,
): Drawn {
  let shown = window;
  const options: uPlot.Options = {
    width: Math.max(box.clientWidth, 320),
    height: HEIGHT,
    legend: { show: false },
    cursor: { show: true, drag: { x: false, y: false } },
    scales: { x: { time: true, range: () => shown }, y: { range: (_u, min, max) => [Math.min(0, min), Math.max(max, 1)] } },
    axes: [{}, { label: unit ? `${label} (${unit})` : label, size: 60 }],
    series: [{}, { label, stroke: "#0b57d0", width: 2, fill: "rgba(11, 87, 208, 0.08)" }],
  };
  const chart = new uPlot(options, columns(points), box);
  return {
    update: (next, nextWindow) => {
      shown = nextWindow;
      chart.setData(columns(next));
    },
    destroy: () => chart.destroy(),
  };
}
