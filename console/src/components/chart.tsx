/**
 * A chart with its words: a Chart.js canvas (bars, and lines on a second axis), a caption saying what it
 * shows, and the same figures as a table for whoever cannot see the canvas. Only the controllers,
 * elements and scales drawn here are imported and registered (once, when this module loads), so the
 * analytics chunk carries no more of Chart.js than it uses.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// The chart types drawn here, then the scales and plugins they use.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement);
Chart.register(CategoryScale, LinearScale, Legend, Tooltip);

/** Colours of the console's palette, dark enough on white (contrast of at least 4.5:1). */
const COLOURS = ['#0b5cad', '#1b6e3a', '#b34700', '#6a3d9a', '#a4161a', '#4a515a'];

export type Series = {
  label: string;
  values: readonly (number | null)[];
  /** Drawn as a line on the right-hand axis (another unit than the bars), else as bars on the left one. */
  line?: boolean;
};

export type ChartProps = {
  /** The chart's heading. */
  title: string;
  /** One sentence saying what the chart shows (its caption, and the canvas's accessible name). */
  summary: string;
  /** What the labels are (the first column of the table). */
  labelTitle: string;
  labels: readonly string[];
  series: readonly Series[];
  /** The left axis's unit and, with a line series, the right one's. */
  units: { bars: string; line?: string };
  /** Horizontal bars (long labels: agents, the funnel's stages). */
  horizontal?: boolean;
};

/** A series' name, with its unit when it is drawn on the line's axis. */
const seriesLabel = (s: Series, units: ChartProps['units']) =>
  s.line && units.line ? `${s.label} (${units.line})` : s.label;

const format = (value: number | null) => (value === null ? '—' : value.toLocaleString());

function configOf(props: ChartProps): ChartConfiguration<'bar' | 'line'> {
  const value = props.horizontal ? 'x' : 'y';
  const hasLine = props.series.some((s) => s.line);
  return {
    type: 'bar',
    data: {
      labels: [...props.labels],
      datasets: props.series.map((s, i) => ({
        type: s.line ? ('line' as const) : ('bar' as const),
        label: seriesLabel(s, props.units),
        data: [...s.values],
        backgroundColor: COLOURS[i % COLOURS.length],
        borderColor: COLOURS[i % COLOURS.length],
        ...(s.line && { [`${value}AxisID`]: 'line', tension: 0.2, pointRadius: 3 }),
      })),
    },
    options: {
      indexAxis: props.horizontal ? 'y' : 'x',
      responsive: true,
      maintainAspectRatio: false,
      // Drawn at once: nothing moves for those who asked for less motion, and the figures are there to read.
      animation: false,
      plugins: { legend: { position: 'bottom' } },
      scales: {
        // Every label shown: a funnel's stage or an agent left out would be a figure without its name.
        [props.horizontal ? 'y' : 'x']: { ticks: { autoSkip: false } },
        [value]: { beginAtZero: true, title: { display: true, text: props.units.bars } },
        ...(hasLine && {
          line: {
            type: 'linear',
            axis: value,
            position: props.horizontal ? 'top' : 'right',
            beginAtZero: true,
            grid: { drawOnChartArea: false },
            title: { display: true, text: props.units.line ?? '' },
          },
        }),
      },
    },
  };
}

export function ChartFigure(props: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const key = JSON.stringify(props);
  useEffect(() => {
    const chart = new Chart(canvas.current!, configOf(props));
    return () => chart.destroy();
  }, [key]);
  const id = `chart-${props.title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      <figcaption id={`${id}-summary`}>{props.summary}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={`${props.title}: ${props.summary}`} />
      </div>
      <details class="chart-data">
        <summary>The figures as a table</summary>
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">{props.labelTitle}</th>
                {props.series.map((s) => (
                  <th scope="col" key={s.label}>
                    {seriesLabel(s, props.units)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.labels.map((label, row) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {props.series.map((s) => (
                    <td key={s.label}>{format(s.values[row] ?? null)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
