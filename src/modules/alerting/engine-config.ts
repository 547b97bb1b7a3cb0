import path from 'node:path'
import type { AlertReceiversTable, AlertRulesTable, EmailSettings } from './alerting.tables.ts'

// What the engines run, made from the database: Prometheus' rule file (one group of every enabled
// rule) and Alertmanager's configuration (a route and a receiver per rule, made of the rule's
// receivers). Secrets stay out of both: Alertmanager reads them from files (`*_file`). JSON is YAML.

type Rule = Pick<
  AlertRulesTable,
  | 'organizationId'
  | 'name'
  | 'description'
  | 'scopedPromql'
  | 'forDuration'
  | 'severity'
  | 'enabled'
  | 'alertReceiverIds'
  | 'targetType'
  | 'targetId'
  | 'targetName'
> & { id: string; version: number; presentation: { summary?: string | null; runbook_url?: string | null } }

type Receiver = Pick<AlertReceiversTable, 'type' | 'sendResolved'> & {
  id: string
  settings: EmailSettings | Record<string, never>
  hasSecret: boolean
}

/** An ISO-8601 duration (PT10S, PT5M, P1DT2H) in seconds; undefined when it is not one. */
export function durationSeconds(iso: string): number | undefined {
  const match = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso)
  if (!match || iso === 'P' || iso.endsWith('T')) return undefined
  const [, days, hours, minutes, seconds] = match
  return Number(days ?? 0) * 86_400 + Number(hours ?? 0) * 3_600 + Number(minutes ?? 0) * 60 + Number(seconds ?? 0)
}

/** The label every alert of a rule carries: Alertmanager routes by it, the state is read by it. */
export const RULE_LABEL = 'berth_rule_id'
export const VERSION_LABEL = 'berth_rule_version'

export const secretFile = (secretsDir: string, receiverId: string) => path.join(secretsDir, receiverId)

export function rulesFile(rules: Rule[]): object {
  return {
    groups: [
      {
        name: 'berth',
        rules: rules
          .filter((rule) => rule.enabled)
          .map((rule) => ({
            alert: rule.name,
            expr: rule.scopedPromql,
            for: `${durationSeconds(rule.forDuration) ?? 0}s`,
            labels: {
              [RULE_LABEL]: rule.id,
              [VERSION_LABEL]: String(rule.version),
              severity: rule.severity,
              berth_organization_id: rule.organizationId,
              berth_target_type: rule.targetType,
              berth_target_id: rule.targetId,
              berth_target_name: rule.targetName,
            },
            annotations: {
              summary: rule.presentation.summary || `${rule.name} on ${rule.targetName}`,
              description: rule.description,
              ...(rule.presentation.runbook_url ? { runbook_url: rule.presentation.runbook_url } : {}),
            },
          })),
      },
    ],
  }
}

export const TITLE = '[{{ .Status | toUpper }}] {{ .CommonLabels.alertname }} on {{ .CommonLabels.berth_target_name }}'
export const TEXT =
  '{{ range .Alerts }}{{ .Annotations.summary }} ({{ .Labels.severity }}) on {{ .Labels.berth_target_name }}{{ if .Labels.replica }}, replica {{ .Labels.replica }}{{ end }}\n{{ end }}'

export function alertmanagerConfig(rules: Rule[], receivers: Map<string, Receiver>, settings: { groupWaitMs: number; secretsDir: string }): object {
  const groupWait = `${Math.max(0, Math.round(settings.groupWaitMs / 1000))}s`
  // How soon a group's changes (a resolved alert) are sent: twice the group wait, at least a second.
  const groupInterval = `${Math.max(1, Math.round((2 * settings.groupWaitMs) / 1000))}s`
  const routed = rules.filter((rule) => rule.enabled)
  return {
    route: {
      receiver: 'berth-none',
      group_by: [RULE_LABEL],
      group_wait: groupWait,
      group_interval: groupInterval,
      repeat_interval: '4h',
      routes: routed.map((rule) => ({ matchers: [`${RULE_LABEL}="${rule.id}"`], receiver: `rule-${rule.id}` })),
    },
    receivers: [
      { name: 'berth-none' },
      ...routed.map((rule) => {
        const mine = rule.alertReceiverIds.map((id) => receivers.get(id)).filter((r): r is Receiver => r !== undefined)
        const slack = mine.filter((r) => r.type === 'SLACK')
        const email = mine.filter((r) => r.type === 'EMAIL')
        return {
          name: `rule-${rule.id}`,
          ...(slack.length > 0
            ? {
                slack_configs: slack.map((r) => ({
                  api_url_file: secretFile(settings.secretsDir, r.id),
                  send_resolved: r.sendResolved,
                  title: TITLE,
                  text: TEXT,
                })),
              }
            : {}),
          ...(email.length > 0
            ? {
                email_configs: email.map((r) => {
                  const s = r.settings as EmailSettings
                  return {
                    to: s.to,
                    from: s.from,
                    smarthost: s.smarthost,
                    require_tls: s.requireTls,
                    send_resolved: r.sendResolved,
                    headers: { Subject: TITLE },
                    text: TEXT,
                    ...(r.hasSecret ? { auth_username: s.authUsername ?? s.from, auth_password_file: secretFile(settings.secretsDir, r.id) } : {}),
                  }
                }),
              }
            : {}),
        }
      }),
    ],
  }
}
