/** A time-series chart (uPlot): one x axis of times, one line per series. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

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

/** A line chart of `series` over `times` (ms since the epoch). */
export function Chart(props: {
  title: string;
  times: number[];
  series: ChartSeries[];
  unit?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = props.series.map((s) => s.label).join('|');

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: element.clientWidth || 400,
      height: 160,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        { stroke: cssColor('--muted'), grid: { stroke: cssColor('--grid') } },
        {
          stroke: cssColor('--muted'),
          grid: { stroke: cssColor('--grid') },
          ...(props.unit ? { label: props.unit } : {}),
        },
      ],
      series: [
        {},
        ...props.series.map((s) => ({ label: s.label, stroke: cssColor(s.color), width: 1.5 })),
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
  }, [shape, props.unit]);

  useEffect(() => {
    plot.current?.setData([props.times.map((t) => t / 1000), ...props.series.map((s) => s.values)]);
  }, [props.times, props.series]);

  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={host} />
    </figure>
  );
}
