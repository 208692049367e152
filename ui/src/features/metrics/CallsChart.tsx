/**
 * Calls over time as bars (failed calls in the danger colour at the foot of each bar), drawn by
 * uPlot on a canvas: about 50 KB, no eval and no injected <style> (the app's CSP), and it only
 * sets element.style properties, which CSP leaves alone. Colours come from the theme through
 * computed styles, so the chart follows light / dark and redraws when the theme changes.
 */
import { useEffect, useRef, useState } from "react";
// Must run before uPlot's module does (see the file).
import "./localeGuard";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

import type { MetricsReport } from "../../lib/ipc";
import { chartData, chartSummary } from "./metricsModel";

const HEIGHT = 180;

interface Palette {
  calls: string;
  failures: string;
  text: string;
  grid: string;
}

/** Colours the CSS gives the swatches (light-dark() resolved by the browser). */
function readPalette(root: HTMLElement): Palette {
  const colour = (name: string) => {
    const swatch = root.querySelector(`[data-swatch="${name}"]`);
    return swatch ? getComputedStyle(swatch).color : "";
  };
  return { calls: colour("calls"), failures: colour("failures"), text: colour("text"), grid: colour("grid") };
}

/** A new value whenever the theme setting or the OS scheme changes. */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => {
      setVersion((n) => n + 1);
    };
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    const scheme = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    scheme?.addEventListener("change", bump);
    return () => {
      observer.disconnect();
      scheme?.removeEventListener("change", bump);
    };
  }, []);
  return version;
}

function options(width: number, palette: Palette): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.8, 48], gap: 1 });
  // Without the bars builder (never in uPlot's full build) the series fall back to lines.
  const shape = bars ? { paths: bars } : {};
  const axis = { stroke: palette.text, grid: { stroke: palette.grid, width: 1 }, ticks: { stroke: palette.grid, width: 1 } };
  return {
    width,
    height: HEIGHT,
    legend: { show: true },
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    scales: { y: { range: (_self, _min, max) => [0, Math.max(1, max)] } },
    axes: [axis, { ...axis, size: 44, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000, 10000] }],
    series: [
      {},
      { label: "calls", fill: palette.calls, stroke: palette.calls, width: 0, points: { show: false }, ...shape },
      { label: "failed", fill: palette.failures, stroke: palette.failures, width: 0, points: { show: false }, ...shape },
    ],
  };
}

export function CallsChart({ report }: { report: MetricsReport }) {
  const frame = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const theme = useThemeVersion();

  // (Re)built when the theme changes; the data and size are updated in place below.
  useEffect(() => {
    const root = frame.current;
    const target = root?.querySelector<HTMLElement>(".calls-chart-plot");
    if (!root || !target) return;
    const chart = new uPlot(options(Math.max(200, target.clientWidth), readPalette(root)), [[], [], []], target);
    plot.current = chart;
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
      chart.setSize({ width: Math.max(200, target.clientWidth), height: HEIGHT });
    }) : null;
    resize?.observe(target);
    return () => {
      resize?.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [theme]);

  useEffect(() => {
    plot.current?.setData(chartData(report));
  }, [report, theme]);

  return (
    <figure className="calls-chart" ref={frame} data-testid="metrics-chart">
      <span className="chart-swatch" data-swatch="calls" />
      <span className="chart-swatch" data-swatch="failures" />
      <span className="chart-swatch" data-swatch="text" />
      <span className="chart-swatch" data-swatch="grid" />
      <div className="calls-chart-plot" role="img" aria-label={chartSummary(report)} />
    </figure>
  );
}
