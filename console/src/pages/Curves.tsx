import { useEffect, useRef, useState } from "preact/hooks";
import type { Client, JobMetrics } from "../api";
import type { Drawn, TimeWindow } from "../chart";
import { type Point, figure, summaryText } from "../series";

const POLL_MS = 15_000;
const WINDOW_MINUTES = 30; // the curves show the last half hour

interface Curve {
  key: string;
  label: string;
  unit: string;
  points: Point[];
}

/** The curves a metrics answer holds: GPU utilisation and memory always, throughput and the
 * job's own series (loss, ...) when it reports them; progress is a bar, not a curve. */
export function curvesOf(metrics: JobMetrics): Curve[] {
  const curves: Curve[] = [
    { key: "gpuUtilization", label: "GPU utilisation", unit: "%", points: metrics.gpuUtilization ?? [] },
    { key: "memoryUsage", label: "GPU memory", unit: "GiB", points: metrics.memoryUsage ?? [] },
  ];
  if (metrics.throughput?.length) {
    curves.push({ key: "throughput", label: "Throughput", unit: "/s", points: metrics.throughput });
  }
  for (const [name, points] of Object.entries(metrics.custom ?? {})) {
    if (name !== "progress" && points.length) curves.push({ key: `custom-${name}`, label: name, unit: "", points });
  }
  return curves;
}

/** The job's GPU curves over the last half hour, asked for again every 15 s. */
export function Curves(props: { client: Client; jobId: string }) {
  const [metrics, setMetrics] = useState<JobMetrics | null>(null);
  const [span, setSpan] = useState<TimeWindow>([0, 0]);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    async function poll() {
      try {
        const now = Date.now();
        const found = await props.client.jobMetrics(props.jobId, WINDOW_MINUTES, now);
        if (!stopped) {
          setSpan([(now - WINDOW_MINUTES * 60_000) / 1000, now / 1000]);
          setMetrics(found);
          setProblem(null);
        }
      } catch (failure) {
        if (!stopped) setProblem(failure instanceof Error ? failure.message : String(failure));
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    }
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [props.client, props.jobId]);

  const progress = metrics?.custom?.progress;
  return (
    <section aria-labelledby="curves-title" data-testid="curves">
      <h2 id="curves-title">GPU use, last {WINDOW_MINUTES} minutes</h2>
      {problem && (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      {metrics && metrics.source === null && <p class="hint">{metrics.message}</p>}
      {progress && progress.length > 0 && <Progress points={progress} />}
      {metrics && (
        <div class="curves">
          {curvesOf(metrics).map((curve) => (
            <CurveView curve={curve} window={span} key={curve.key} />
          ))}
        </div>
      )}
    </section>
  );
}

function Progress(props: { points: Point[] }) {
  const latest = props.points[props.points.length - 1].value;
  return (
    <p class="progress">
      <label>
        Progress <progress max={100} value={Math.min(100, Math.max(0, latest))} /> {figure(latest)} %
      </label>
    </p>
  );
}

function CurveView(props: { curve: Curve; window: TimeWindow }) {
  const { curve } = props;
  const titleId = `curve-${curve.key}`;
  return (
    <figure class="curve" aria-labelledby={titleId} data-curve={curve.key}>
      <figcaption>
        <strong id={titleId}>{curve.label}</strong>{" "}
        <span data-testid="curve-summary">{summaryText(curve.points, curve.unit)}</span>
      </figcaption>
      {curve.points.length > 0 && <Chart curve={curve} window={props.window} />}
      {curve.points.length > 0 && (
        <details>
          <summary>{curve.label} as a table</summary>
          <div class="table-box values">
            <table>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">{curve.unit ? `${curve.label} (${curve.unit})` : curve.label}</th>
                </tr>
              </thead>
              <tbody>
                {curve.points.map((point) => (
                  <tr key={point.timestamp}>
                    <td>
                      <time dateTime={point.timestamp}>{point.timestamp.replace("T", " ").replace("Z", "")}</time>
                    </td>
                    <td>{figure(point.value)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}

/** The drawing itself: hidden from assistive technology (the summary and the table say the
 * same), uPlot loaded on first use. */
function Chart(props: { curve: Curve; window: TimeWindow }) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef<Drawn | null>(null);
  const { curve } = props;

  useEffect(() => {
    let gone = false;
    if (drawn.current) {
      drawn.current.update(curve.points, props.window);
      return;
    }
    import("../chart").then(({ draw }) => {
      if (!gone && box.current && !drawn.current) drawn.current = draw(box.current, curve.points, curve.label, curve.unit, props.window);
    }, () => undefined); // no drawing (e.g. no canvas): the summary and the table still say it all
    return () => {
      gone = true;
    };
  }, [curve.points, props.window]);

  useEffect(() => () => drawn.current?.destroy(), []);
  return <div class="chart" ref={box} aria-hidden="true" />;
}
