// A service's Metrics tab (docs/metrics.md, docs/console.md): its CPU, memory, network and restarts
// over the last hour, day or week, read from Prometheus' query_range through Berth's
// get-cluster-metrics (which limits every query to the organization's series), drawn with uPlot.
// Registered as a tab of every kind's page (service-tabs.tsx).
import { useEffect, useRef, useState } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { api } from './api.ts'
import { usePolled } from './polled.ts'
import type { ServiceTabProps } from './service-tab-props.ts'
import { ErrorMessage } from './ui.tsx'

interface Range {
  id: string
  label: string
  seconds: number
  /** Seconds between two points: about 120 points a chart. */
  step: number
}

export const METRIC_RANGES: Range[] = [
  { id: 'hour', label: 'Last hour', seconds: 3_600, step: 30 },
  { id: 'day', label: 'Last day', seconds: 86_400, step: 600 },
  { id: 'week', label: 'Last week', seconds: 604_800, step: 3_600 },
]

type Unit = 'cores' | 'bytes' | 'bytes/s' | 'count'

interface ChartSpec {
  id: string
  title: string
  unit: Unit
  /** Each line: its label and its PromQL, from the service's id and the rate window (e.g. "60s"). */
  lines: { label: string; query: (serviceId: string, window: string) => string }[]
}

const of = (name: string, serviceId: string) => `${name}{service_id="${serviceId}"}`

/** The series Berth names as cAdvisor does, labelled `service_id` on Docker and on Kubernetes (docs/metrics.md). */
export const METRIC_CHARTS: ChartSpec[] = [
  {
    id: 'cpu',
    title: 'CPU',
    unit: 'cores',
    lines: [{ label: 'CPU', query: (id, w) => `sum(rate(${of('container_cpu_usage_seconds_total', id)}[${w}]))` }],
  },
  {
    id: 'memory',
    title: 'Memory',
    unit: 'bytes',
    lines: [{ label: 'working set', query: (id) => `sum(${of('container_memory_working_set_bytes', id)})` }],
  },
  {
    id: 'network',
    title: 'Network',
    unit: 'bytes/s',
    lines: [
      { label: 'rx', query: (id, w) => `sum(rate(${of('container_network_receive_bytes_total', id)}[${w}]))` },
      { label: 'tx', query: (id, w) => `sum(rate(${of('container_network_transmit_bytes_total', id)}[${w}]))` },
    ],
  },
  {
    id: 'restarts',
    title: 'Restarts',
    unit: 'count',
    lines: [{ label: 'restarts', query: (id) => `sum(${of('container_restarts_total', id)})` }],
  },
]

const COLOURS = ['#2563eb', '#d97706', '#059669']

/** A value as people read it: 1.5 GB, 230 kB/s, 0.25 cores. */
export function formatValue(value: number | null | undefined, unit: Unit): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  if (unit === 'count') return String(Math.round(value))
  if (unit === 'cores') return `${value < 0.1 ? value.toFixed(3) : value.toFixed(2)} cores`
  const prefixes = ['B', 'kB', 'MB', 'GB', 'TB']
  let scaled = value
  let index = 0
  while (Math.abs(scaled) >= 1000 && index < prefixes.length - 1) {
    scaled /= 1000
    index++
  }
  return `${scaled < 10 && index > 0 ? scaled.toFixed(1) : Math.round(scaled)} ${prefixes[index]}${unit === 'bytes/s' ? '/s' : ''}`
}

interface PrometheusMatrix {
  status: string
  data?: { resultType: string; result: { metric: Record<string, string>; values: [number, string][] }[] }
  error?: string
}

/** The aligned points of a chart: the range's timestamps, then a line of values (null: no sample) per query. */
type Points = [number[], ...(number | null)[][]]

async function readChart(clusterId: string, serviceId: string, chart: ChartSpec, range: Range): Promise<Points> {
  const end = Math.floor(Date.now() / 1000 / range.step) * range.step
  const start = end - range.seconds
  const window = `${Math.max(2 * range.step, 60)}s`
  const times: number[] = []
  for (let t = start; t <= end; t += range.step) times.push(t)
  const lines = await Promise.all(
    chart.lines.map(async (line) => {
      const params = new URLSearchParams({
        endpoint: 'api/v1/query_range',
        query: line.query(serviceId, window),
        start: String(start),
        end: String(end),
        step: String(range.step),
      })
      const { metrics } = await api.get<{ metrics: string }>(`/cluster/${clusterId}/metrics?${params}`)
      const answer = JSON.parse(metrics) as PrometheusMatrix
      if (answer.status !== 'success') throw new Error(answer.error ?? 'Prometheus did not answer the query')
      const byTime = new Map<number, number>()
      for (const series of answer.data?.result ?? []) for (const [t, v] of series.values) byTime.set(Math.round(t), Number(v))
      return times.map((t) => byTime.get(t) ?? null)
    }),
  )
  return [times, ...lines]
}

function Chart({ chart, points }: { chart: ChartSpec; points: Points }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const plot = new uPlot(
      {
        width: Math.max(240, element.clientWidth),
        height: 180,
        legend: { show: true },
        scales: { y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(max ?? 1, chart.unit === 'count' ? 1 : 0) || 1] } },
        axes: [{}, { size: 80, values: (_u, ticks) => ticks.map((tick) => formatValue(tick, chart.unit)) }],
        series: [
          {},
          ...chart.lines.map((line, index) => ({
            label: line.label,
            stroke: COLOURS[index % COLOURS.length]!,
            width: 2,
            spanGaps: false,
            value: (_u: uPlot, value: number | null) => formatValue(value, chart.unit),
          })),
        ],
      },
      points as uPlot.AlignedData,
      element,
    )
    const resized = new ResizeObserver(() => plot.setSize({ width: Math.max(240, element.clientWidth), height: 180 }))
    resized.observe(element)
    return () => {
      resized.disconnect()
      plot.destroy()
    }
  }, [points])
  return <div class="metric-plot" ref={box} />
}

/** The newest value of each line, in words: what the chart says now. */
function latest(chart: ChartSpec, points: Points): string {
  return chart.lines
    .map((line, index) => {
      const values = points[index + 1] as (number | null)[]
      const last = [...values].reverse().find((value) => value !== null)
      return `${chart.lines.length > 1 ? `${line.label} ` : ''}${formatValue(last, chart.unit)}`
    })
    .join(', ')
}

function MetricChart({ clusterId, serviceId, chart, range }: { clusterId: string; serviceId: string; chart: ChartSpec; range: Range }) {
  // Read again every step (at least every 30 s): the newest point moves on.
  const polled = usePolled(
    () => readChart(clusterId, serviceId, chart, range),
    `${clusterId} ${serviceId} ${chart.id} ${range.id}`,
    Math.max(30_000, range.step * 1000),
  )
  const points = polled.data
  const empty = points ? points.slice(1).every((line) => (line as (number | null)[]).every((value) => value === null)) : false
  return (
    <section class="card metric-chart" data-chart={chart.id} aria-label={chart.title}>
      <header>
        <h2>{chart.title}</h2>
        {points && !empty ? <span class="metric-now">{latest(chart, points)}</span> : null}
      </header>
      <ErrorMessage message={polled.error} />
      {!points && !polled.error ? <p class="loading">Loading…</p> : null}
      {points && empty ? (
        <p class="note metric-empty">No data over this period: the service ran no instance, or Prometheus has not read it yet.</p>
      ) : null}
      {points && !empty ? <Chart chart={chart} points={points} /> : null}
    </section>
  )
}

export function ServiceMetrics({ service, context }: ServiceTabProps) {
  const [rangeId, setRangeId] = useState(METRIC_RANGES[0]!.id)
  const range = METRIC_RANGES.find((candidate) => candidate.id === rangeId) ?? METRIC_RANGES[0]!
  const clusterId = context.environment.cluster_id
  return (
    <div class="service-metrics">
      <fieldset class="metric-ranges">
        <legend>Period</legend>
        {METRIC_RANGES.map((candidate) => (
          <button
            key={candidate.id}
            type="button"
            class={candidate.id === range.id ? 'selected' : ''}
            aria-pressed={candidate.id === range.id}
            data-range={candidate.id}
            onClick={() => setRangeId(candidate.id)}
          >
            {candidate.label}
          </button>
        ))}
      </fieldset>
      <p class="note">From Prometheus, as Berth reads it (docs/metrics.md): every instance of the service added up.</p>
      <div class="metric-charts">
        {METRIC_CHARTS.map((chart) => (
          <MetricChart key={chart.id} clusterId={clusterId} serviceId={service.id} chart={chart} range={range} />
        ))}
      </div>
    </div>
  )
}
