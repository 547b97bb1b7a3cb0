import type { MonitoringPaths } from '#src/modules/metrics/monitoring-engines.ts'
import { RULE_LABEL, VERSION_LABEL } from './engine-config.ts'

// A rule's state as the engines see it (docs/alerting.md): Prometheus' rules API says whether it
// runs (and which version), and whether it is inactive, pending or firing; Alertmanager's alerts
// API says whether a firing alert is suppressed or routed nowhere. Alertmanager does not tell
// whether a notification went: a firing alert it holds is NOTIFIED once its group wait is over.

export type AlertRuleState = 'UNDEPLOYED' | 'OK' | 'TRIGGERED' | 'PENDING_NOTIFICATION' | 'NOTIFIED' | 'SUPPRESSED' | 'UNROUTED'

export interface RuleView {
  state: AlertRuleState
  /** Whether the engines run the rule's current version. */
  upToDate: boolean
  /** When its alert started firing. */
  startsAt: string | undefined
}

interface PrometheusRule {
  state: 'inactive' | 'pending' | 'firing'
  labels: Record<string, string>
  alerts: { activeAt: string; state: string }[]
}

interface AlertmanagerAlert {
  labels: Record<string, string>
  startsAt: string
  status: { state: 'active' | 'suppressed' | 'unprocessed' }
  receivers: { name: string }[]
}

const TIMEOUT_MS = 5_000

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
  if (!res.ok) throw new Error(`${url} answered ${res.status}`)
  return (await res.json()) as T
}

/** What the engines say of each rule they run, by rule id; undefined when they do not answer. */
export async function readRuleViews(
  paths: MonitoringPaths,
  settings: { groupWaitMs: number; intervalMs: number },
  forSecondsOf: (ruleId: string) => number,
): Promise<Map<string, { version: string; view: Omit<RuleView, 'upToDate'> }> | undefined> {
  let rules: PrometheusRule[]
  let alerts: AlertmanagerAlert[]
  try {
    const [fromPrometheus, fromAlertmanager] = await Promise.all([
      json<{ data: { groups: { rules: PrometheusRule[] }[] } }>(`${paths.prometheusUrl}/api/v1/rules?type=alert`),
      json<AlertmanagerAlert[]>(`${paths.alertmanagerUrl}/api/v2/alerts`),
    ])
    rules = fromPrometheus.data.groups.flatMap((group) => group.rules)
    alerts = fromAlertmanager
  } catch {
    return undefined
  }
  const views = new Map<string, { version: string; view: Omit<RuleView, 'upToDate'> }>()
  for (const rule of rules) {
    const id = rule.labels[RULE_LABEL]
    if (!id) continue
    const version = rule.labels[VERSION_LABEL] ?? ''
    const activeAt = rule.alerts.map((a) => Date.parse(a.activeAt)).sort()[0]
    if (rule.state === 'inactive') {
      views.set(id, { version, view: { state: 'OK', startsAt: undefined } })
      continue
    }
    if (rule.state === 'pending') {
      views.set(id, { version, view: { state: 'TRIGGERED', startsAt: undefined } })
      continue
    }
    const firingSince = (activeAt ?? Date.now()) + forSecondsOf(id) * 1000
    const startsAt = new Date(firingSince).toISOString()
    const held = alerts.filter((a) => a.labels[RULE_LABEL] === id)
    let state: AlertRuleState
    if (held.length === 0) state = 'PENDING_NOTIFICATION'
    else if (held.every((a) => a.status.state === 'suppressed')) state = 'SUPPRESSED'
    else if (held.every((a) => a.receivers.every((r) => r.name === 'berth-none'))) state = 'UNROUTED'
    else state = Date.now() >= firingSince + settings.groupWaitMs + settings.intervalMs ? 'NOTIFIED' : 'PENDING_NOTIFICATION'
    views.set(id, { version, view: { state, startsAt } })
  }
  return views
}
