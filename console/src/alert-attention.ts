// "Alerts firing" on the overview (docs/alerting.md): each enabled alert rule of the organization
// whose state, read from Prometheus and Alertmanager, says it fires, with what it watches.
import { api } from './api.ts'
import type { AttentionItem, AttentionSource } from './attention-source.ts'
import { servicePage } from './kinds.ts'
import { usePolled } from './polled.ts'

interface AlertRulePage {
  results: {
    id: string
    name: string
    state: string
    severity: string
    target: { service?: { id: string; name: string; service_type: string } }
  }[]
}

/** The states of a rule whose condition holds, notified or not yet. */
const FIRING = new Set(['TRIGGERED', 'PENDING_NOTIFICATION', 'NOTIFIED', 'SUPPRESSED', 'UNROUTED'])

async function firingAlerts(organizationId: string): Promise<AttentionItem[]> {
  const rules = await api.get<AlertRulePage>(`/organization/${organizationId}/alert-rules`)
  return rules.results
    .filter((rule) => FIRING.has(rule.state))
    .map((rule) => {
      const service = rule.target.service
      return {
        key: `alert-${rule.id}`,
        text: `${rule.name} (${rule.severity.toLowerCase()})`,
        badge: { text: rule.state.toLowerCase().replaceAll('_', ' '), tone: 'error' as const },
        href: service ? servicePage(service.service_type, service.id) : undefined,
        where: service ? service.name : 'its cluster',
      }
    })
}

export const firingAlertsSource: AttentionSource = {
  id: 'firing-alerts',
  title: 'Alerts firing',
  useItems: (organizationId) => {
    const polled = usePolled(() => firingAlerts(organizationId), organizationId, 30_000)
    return { ...(polled.data ? { items: polled.data } : {}), ...(polled.error ? { error: polled.error } : {}) }
  },
}
