/**
 * Charts, drawn by uPlot (canvas, ~50 KB minified, the fastest of the small chart libraries): lines over
 * time and bars over categories. Each chart is a figure with a caption, follows its container's width, and
 * offers its figures as a table (for screen readers, and for reading exact values).
 *
 * A bar chart's category names are not drawn on the canvas, where uPlot writes each whole and long model
 * names run into each other: they are a row of elements under the plot, one column per bar, each cut with
 * an ellipsis to its column and giving its full name on hover (issue 44 item 6).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { ScrollBox } from './scroll-box';

export interface Series {
  readonly label: string;
  /** One value per point; null where nothing was measured (a gap, never a zero). */
  readonly values: readonly (number | null)[];
}

/** Distinct on light and dark backgrounds alike. */
const PALETTE = ['#3b6fd8', '#d1495b', '#2a9d8f', '#d08c1d', '#8a63c4', '#5b8c3a'];

export const seriesColor = (index: number): string => PALETTE[index % PALETTE.length] ?? '#3b6fd8';

function cssColor(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** The x axis as drawn (`x` replaces it: a bar chart hides it), and the y axis's values in `format`. */
function axes(format: (value: number) => string, x?: uPlot.Axis): uPlot.Axis[] {
  const stroke = cssColor('--muted', '#666');
  const grid = { stroke: cssColor('--grid', 'rgba(128,128,128,0.2)'), width: 1 };
  return [
    x ?? { stroke, grid, ticks: grid },
    { stroke, grid, ticks: grid, size: 64, values: (_plot, splits) => splits.map((value) => format(value)) },
  ];
}

/** Keeps a uPlot instance in `host`, rebuilt when `build` changes and resized with the host's width. */
function usePlot(build: (width: number) => { options: uPlot.Options; data: uPlot.AlignedData }, deps: unknown[]) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const { options, data } = build(Math.max(element.clientWidth, 200));
    const plot = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => {
      const width = Math.max(element.clientWidth, 200);
      if (width !== plot.width) plot.setSize({ width, height: plot.height });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, deps);
  return host;
}

function FiguresTable({
  title,
  head,
  rows,
}: {
  title: string;
  head: readonly string[];
  rows: readonly (readonly string[])[];
}) {
  return (
    <details class="chart-figures">
      <summary>Figures</summary>
      <ScrollBox label={`${title}: figures`}>
        <table>
          <thead>
            <tr>
              {head.map((cell) => (
                <th scope="col" key={cell}>
                  {cell}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row[0]}>
                {row.map((cell, index) => (index === 0 ? <th scope="row">{cell}</th> : <td>{cell}</td>))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </details>
  );
}

const show = (value: number | null | undefined, format: (value: number) => string) =>
  value === null || value === undefined ? '—' : format(value);

export interface TimeChartProps {
  readonly title: string;
  /** Epoch seconds, ascending. */
  readonly times: readonly number[];
  readonly series: readonly Series[];
  readonly format?: (value: number) => string;
  readonly height?: number;
}

/** Lines over time. */
export function TimeChart({ title, times, series, format = String, height = 220 }: TimeChartProps) {
  const host = usePlot(
    (width) => ({
      options: {
        width,
        height,
        scales: { x: { time: true } },
        axes: axes(format),
        legend: { live: true },
        series: [
          {},
          ...series.map((line, index) => ({
            label: line.label,
            stroke: seriesColor(index),
            width: 2,
            points: { show: times.length < 40 },
            value: (_plot: uPlot, value: number | null) => show(value, format),
          })),
        ],
      },
      data: [times as number[], ...series.map((line) => line.values as (number | null)[])],
    }),
    [times, series, height],
  );
  const rows = times.map((time, index) => [
    new Date(time * 1000).toLocaleString(),
    ...series.map((line) => show(line.values[index], format)),
  ]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} class="chart-plot" role="img" aria-label={`${title}: chart over ${times.length} points`} />
      <FiguresTable title={title} head={['Time', ...series.map((line) => line.label)]} rows={rows} />
    </figure>
  );
}

export interface BarChartProps {
  readonly title: string;
  readonly categories: readonly string[];
  readonly values: readonly (number | null)[];
  readonly label: string;
  readonly format?: (value: number) => string;
  readonly height?: number;
  readonly color?: number;
}

const bars = uPlot.paths.bars?.({ size: [0.6, 80] });

/** One bar per category, its name under it in a column as wide as the bar's slot. */
export function BarChart({
  title,
  categories,
  values,
  label,
  format = String,
  height = 220,
  color = 0,
}: BarChartProps) {
  const names = useRef<HTMLDivElement>(null);
  /** Puts the row of names under the plotting area (the y axis takes the left), in CSS pixels. */
  const placeNames = (plot: uPlot) => {
    const row = names.current;
    if (row === null) return;
    row.style.marginLeft = `${plot.bbox.left / uPlot.pxRatio}px`;
    row.style.width = `${plot.bbox.width / uPlot.pxRatio}px`;
  };
  const host = usePlot(
    (width) => ({
      options: {
        width,
        height,
        scales: {
          x: { time: false, range: [-0.5, categories.length - 0.5] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: axes(format, { show: false }),
        legend: { show: false },
        hooks: { draw: [placeNames] },
        series: [
          {},
          {
            label,
            fill: seriesColor(color),
            stroke: seriesColor(color),
            ...(bars === undefined ? {} : { paths: bars }),
            points: { show: false },
          },
        ],
      },
      data: [categories.map((_category, index) => index), values as (number | null)[]],
    }),
    [categories, values, height],
  );
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} class="chart-plot" role="img" aria-label={`${title}: bars for ${categories.length} ${label}`} />
      <div
        ref={names}
        class="chart-categories"
        aria-hidden="true"
        style={{ gridTemplateColumns: `repeat(${Math.max(categories.length, 1)}, minmax(0, 1fr))` }}
      >
        {categories.map((category) => (
          <span key={category} class="chart-category" title={category}>
            {category}
          </span>
        ))}
      </div>
      <FiguresTable
        title={title}
        head={['', label]}
        rows={categories.map((category, index) => [category, show(values[index], format)])}
      />
    </figure>
  );
}
