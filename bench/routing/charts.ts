/**
 * The routing report's charts (issue 41 item 3), rendered by Apache ECharts on the server to SVG strings
 * (`renderer: 'svg', ssr: true`), never drawn by hand: TTFT percentiles per strategy as grouped bars, and
 * each strategy's TTFT distribution as a CDF. Animation is off so the SVG is the final frame.
 */
import * as echarts from 'echarts';
import type { Strategy } from './router';
import type { SummaryRow } from './summary';

const WIDTH = 720;
const HEIGHT = 360;

function render(option: echarts.EChartsCoreOption): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({ animation: false, backgroundColor: '#ffffff', ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

function rounded(value: number): number | null {
  return Number.isFinite(value) ? Math.round(value) : null;
}

/** Grouped bars: p50, p95 and p99 time to first token (trace ms) of each strategy. */
export function ttftBarsSvg(title: string, rows: ReadonlyMap<Strategy, SummaryRow>): string {
  const strategies = [...rows.keys()];
  const series = (['ttftP50', 'ttftP95', 'ttftP99'] as const).map((key) => ({
    name: key.replace('ttftP', 'p'),
    type: 'bar',
    data: strategies.map((strategy) => rounded(rows.get(strategy)?.[key] ?? Number.NaN)),
  }));
  return render({
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 28 },
    grid: { top: 64, left: 72, right: 24, bottom: 40 },
    xAxis: { type: 'category', data: strategies },
    yAxis: { type: 'value', name: 'TTFT, ms (trace time)', nameGap: 52, nameLocation: 'middle' },
    series,
  });
}

/** One line per strategy: the share of requests whose first token came within x ms (trace time). */
export function ttftCdfSvg(title: string, rows: ReadonlyMap<Strategy, SummaryRow>): string {
  const series = [...rows.entries()].map(([strategy, row]) => ({
    name: strategy,
    type: 'line',
    showSymbol: false,
    data: row.ttftCdf.map((value, index) => [rounded(value), index / (row.ttftCdf.length - 1)]),
  }));
  return render({
    title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
    legend: { top: 28 },
    grid: { top: 64, left: 64, right: 24, bottom: 48 },
    xAxis: { type: 'log', name: 'TTFT, ms (trace time, log scale)', nameLocation: 'middle', nameGap: 28 },
    yAxis: { type: 'value', min: 0, max: 1, name: 'share of requests' },
    series,
  });
}
