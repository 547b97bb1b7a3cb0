// A small registry of metrics rendered in Prometheus' text exposition format (version 0.0.4):
// counters and gauges kept in memory, and families collected afresh at each scrape (a query, the
// last Docker stats read).

export type Labels = Record<string, string>

export interface Sample {
  labels: Labels
  value: number
}

export interface Family {
  name: string
  help: string
  type: 'counter' | 'gauge'
  samples: Sample[]
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
const escapeHelp = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value)
}

const labelKey = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join('\u0000')

/** One family in the text format. */
export function renderFamily(family: Family): string {
  const lines = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`]
  for (const sample of family.samples) {
    const entries = Object.entries(sample.labels)
    const labels = entries.length > 0 ? `{${entries.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(',')}}` : ''
    lines.push(`${family.name}${labels} ${formatValue(sample.value)}`)
  }
  return `${lines.join('\n')}\n`
}

/** A metric this process counts or sets, by labels. */
export class KeptMetric {
  private readonly values = new Map<string, Sample>()
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}

  add(labels: Labels, by = 1): void {
    const key = labelKey(labels)
    const sample = this.values.get(key)
    if (sample) sample.value += by
    else this.values.set(key, { labels, value: by })
  }

  set(labels: Labels, value: number): void {
    this.values.set(labelKey(labels), { labels, value })
  }

  family(): Family {
    return { name: this.name, help: this.help, type: this.type, samples: [...this.values.values()] }
  }
}

export type Collector = () => Promise<Family[]> | Family[]

/** The metrics of a process: kept ones, and collectors asked at each scrape. */
export function createMetricsRegistry() {
  const kept: KeptMetric[] = []
  const collectors: Collector[] = []
  return {
    counter(name: string, help: string): KeptMetric {
      const metric = new KeptMetric(name, help, 'counter')
      kept.push(metric)
      return metric
    },
    gauge(name: string, help: string): KeptMetric {
      const metric = new KeptMetric(name, help, 'gauge')
      kept.push(metric)
      return metric
    },
    collect(collector: Collector): void {
      collectors.push(collector)
    },
    /** Everything, in the text format; a collector that fails is left out (and counted), not the whole scrape. */
    async render(onError: (error: unknown) => void): Promise<string> {
      const families = kept.map((metric) => metric.family())
      const collected = await Promise.allSettled(collectors.map(async (collector) => collector()))
      for (const result of collected) {
        if (result.status === 'fulfilled') families.push(...result.value)
        else onError(result.reason)
      }
      return families.map(renderFamily).join('')
    },
  }
}

export type MetricsRegistry = ReturnType<typeof createMetricsRegistry>
