/** A small bar chart of counts over time, such as an error group's dead jobs per hour. */

const WIDTH = 144;
const HEIGHT = 28;

/** Bars of `values` (oldest first), scaled to the largest; `label` names it for screen readers. */
export function Sparkline(props: { values: readonly number[]; label: string; titles?: string[] }) {
  const max = Math.max(1, ...props.values);
  const step = WIDTH / Math.max(1, props.values.length);
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={props.label}
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
    >
      <line class="base" x1={0} y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
      {props.values.map((value, k) => {
        const height = value === 0 ? 0 : Math.max(2, (value / max) * (HEIGHT - 2));
        return (
          <rect key={k} x={k * step + 0.5} y={HEIGHT - height} width={step - 1} height={height}>
            <title>{props.titles?.[k] ?? String(value)}</title>
          </rect>
        );
      })}
    </svg>
  );
}
