import type { ServiceAlerting } from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { ALERT_SERVICE_TARGETS } from '#src/platform/service-types.ts'
import { type EmailSettings, withAlertingTables } from './alerting.tables.ts'
import { rulesFile, TEXT, TITLE } from './engine-config.ts'

// What the built-in chart renders for the cluster's prometheus-operator at a service's deployment on
// Kubernetes (docs/alerting.md, "On Kubernetes"): the enabled rules that target the service, as Berth's
// own Prometheus runs them, and the receivers they name, secrets opened (the chart puts them in a Secret).

const SERVICE_TARGETS: readonly string[] = ALERT_SERVICE_TARGETS

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))}s`

export function serviceAlerting(plain: Db, secrets: SecretBox, settings: { groupWaitMs: number }) {
  const db = withAlertingTables(plain)
  /** The rules watching the service and their receivers; null when none does (or the service is gone). */
  return async (organizationId: string, serviceId: string): Promise<ServiceAlerting | null> => {
    const rules = await db
      .selectFrom('alertRules')
      .selectAll()
      .where('organizationId', '=', organizationId)
      .where('targetId', '=', serviceId)
      .where('targetType', 'in', SERVICE_TARGETS)
      .where('enabled', '=', true)
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
    if (rules.length === 0) return null
    const service = await db
      .selectFrom('services as s')
      .innerJoin('environments as e', 'e.id', 's.environmentId')
      .select(['s.name', 's.environmentId', 'e.projectId'])
      .where('s.organizationId', '=', organizationId)
      .where('s.id', '=', serviceId)
      .executeTakeFirst()
    if (!service) return null
    const ids = [...new Set(rules.flatMap((rule) => rule.alertReceiverIds))]
    const receivers =
      ids.length === 0
        ? []
        : await db.selectFrom('alertReceivers').selectAll().where('organizationId', '=', organizationId).where('id', 'in', ids).execute()
    const prometheusRules = (rulesFile(rules) as { groups: { rules: Record<string, unknown>[] }[] }).groups[0]!.rules
    return {
      seriesLabels: {
        service_id: serviceId,
        service_name: service.name,
        environment_id: service.environmentId,
        project_id: service.projectId,
        organization_id: organizationId,
      },
      rules: rules.map((rule, index) => ({ id: rule.id, rule: prometheusRules[index]!, receiverIds: rule.alertReceiverIds })),
      receivers: receivers.map((receiver) => {
        const email = receiver.type === 'EMAIL' ? (receiver.settings as EmailSettings) : null
        return {
          id: receiver.id,
          type: receiver.type,
          sendResolved: receiver.sendResolved,
          email: email && {
            to: email.to,
            from: email.from,
            smarthost: email.smarthost,
            requireTls: email.requireTls,
            authUsername: email.authUsername,
          },
          secret: receiver.secretSealed ? secrets.open(receiver.secretSealed) : null,
        }
      }),
      groupWait: seconds(settings.groupWaitMs),
      groupInterval: seconds(Math.max(1000, 2 * settings.groupWaitMs)),
      title: TITLE,
      text: TEXT,
    }
  }
}
