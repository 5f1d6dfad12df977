/**
 * A time-series chart (uPlot): one x axis of times, one line per series, a y axis from zero with
 * labels in the series' unit and room for them, and a scale that one spike cannot flatten (the
 * spikes above it are named under the chart).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { spikeCap, type ScaleCap, type Spike } from '../lib/chart-scale.js';
import { stamp } from '../lib/format.js';

/** One line. */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** A CSS colour variable name, such as `--ok`. */
  color: string;
}

function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** Steps between x ticks, in seconds. */
const X_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400];

/** Width of the y axis, in px: enough for labels such as `12.5 min`. */
const Y_AXIS_SIZE = 64;

/** A line chart of `series` over `times` (ms since the epoch); `format` writes a y value. */
export function Chart(props: {
  title: string;
  times: number[];
  series: ChartSeries[];
  format: (value: number) => string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const cap = spikeCap(
    props.times,
    props.series.map((s) => s.values),
  );
  // uPlot reads the scale and the labels through these at every redraw.
  const capRef = useRef<ScaleCap | null>(cap);
  capRef.current = cap;
  const formatRef = useRef(props.format);
  formatRef.current = props.format;
  const shape = props.series.map((s) => s.label).join('|');

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: element.clientWidth || 400,
      height: 160,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: {
        x: { time: true },
        y: {
          range: (_u, _min, max) => [0, capRef.current?.max ?? (max > 0 ? max * 1.1 : 1)],
        },
      },
      axes: [
        {
          stroke: cssColor('--muted'),
          grid: { stroke: cssColor('--grid') },
          // Whole seconds at least, written as clock times people read (10:55 or 10:55:30).
          incrs: X_STEPS,
          space: 80,
          values: (_u, splits, _axis, _space, step) =>
            splits.map((t) => stamp(t * 1000).slice(11, step < 60 ? 19 : 16)),
        },
        {
          stroke: cssColor('--muted'),
          grid: { stroke: cssColor('--grid') },
          size: Y_AXIS_SIZE,
          values: (_u, splits) => splits.map((v) => formatRef.current(v)),
        },
      ],
      series: [
        {},
        ...props.series.map((s) => ({
          label: s.label,
          stroke: cssColor(s.color),
          width: 1.5,
          value: (_u: uPlot, v: number | null) => (v === null ? '--' : formatRef.current(v)),
        })),
      ],
    };
    plot.current = new uPlot(options, [[], ...props.series.map(() => [])], element);
    const resize = new ResizeObserver(() =>
      plot.current?.setSize({ width: element.clientWidth, height: 160 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);

  useEffect(() => {
    plot.current?.setData([props.times.map((t) => t / 1000), ...props.series.map((s) => s.values)]);
  }, [props.times, props.series]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} />
      {cap && <SpikeNote spikes={cap.spikes} format={props.format} />}
    </figure>
  );
}

function SpikeNote(props: { spikes: Spike[]; format: (value: number) => string }) {
  return (
    <p class="spikes muted" data-spikes={props.spikes.length}>
      ▲ above the scale:{' '}
      {props.spikes.map((s) => `${props.format(s.value)} at ${stamp(s.at).slice(11)}`).join(', ')}
    </p>
  );
}
