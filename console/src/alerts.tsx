// The organization's Alerts page (docs/alerting.md, docs/console.md): its alert rules with the state
// Prometheus and Alertmanager give them, and its receivers, each with "Send a test"
// (validateExistingAlertReceiver: a real notification, and whether it went).
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { servicePage } from './kinds.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { usePolled } from './polled.ts'
import { hasRole } from './types.ts'
import { Empty, ErrorMessage, Show, useLoad } from './ui.tsx'

interface AlertRule {
  id: string
  name: string
  description: string
  state: string
  severity: string
  enabled: boolean
  for_duration: string
  is_up_to_date: boolean
  starts_at?: string
  condition: { promql: string }
  alert_receiver_ids: string[]
  target: { target_type: string; target_id: string; service?: { id: string; name: string; service_type: string } }
}

interface AlertReceiver {
  id: string
  name: string
  description: string
  type: 'SLACK' | 'EMAIL'
  send_resolved: boolean
  to?: string
  smarthost?: string
}

/** The states of a rule whose condition holds (docs/alerting.md, "State"). */
const FIRING = new Set(['TRIGGERED', 'PENDING_NOTIFICATION', 'NOTIFIED', 'SUPPRESSED', 'UNROUTED'])
const toneOfRule = (state: string) => (FIRING.has(state) ? 'error' : state === 'OK' ? 'success' : 'neutral')
const stateWords = (state: string) => state.toLowerCase().replaceAll('_', ' ')

function RuleRows({ rules, receivers }: { rules: AlertRule[]; receivers: Map<string, AlertReceiver> }) {
  return (
    <table class="alert-rules">
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">State</th>
          <th scope="col">Watches</th>
          <th scope="col">Severity</th>
          <th scope="col">Receivers</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((rule) => {
          const service = rule.target.service
          const href = service ? servicePage(service.service_type, service.id) : undefined
          return (
            <tr key={rule.id} data-rule={rule.id}>
              <th scope="row">
                {rule.name}
                <code class="promql">{rule.condition.promql}</code>
                <span class="note">for {rule.for_duration}</span>
              </th>
              <td>
                <span class={`badge tone-${toneOfRule(rule.state)}`}>{stateWords(rule.state)}</span>
                {rule.enabled && !rule.is_up_to_date ? <span class="note"> (the engines run an older version)</span> : null}
                {rule.starts_at ? <span class="note"> since {new Date(rule.starts_at).toLocaleString()}</span> : null}
              </td>
              <td>{service && href ? <a href={href}>{service.name}</a> : service ? service.name : rule.target.target_type.trim().toLowerCase()}</td>
              <td>{rule.severity.toLowerCase()}</td>
              <td>{rule.alert_receiver_ids.map((id) => receivers.get(id)?.name ?? id).join(', ')}</td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

function SendTest({ receiver }: { receiver: AlertReceiver }) {
  const [state, setState] = useState<{ busy?: boolean; result?: string; failed?: boolean }>({})
  const send = async () => {
    setState({ busy: true })
    try {
      const answer = await api.post<{ sent: boolean; message?: string }>(`/alert-receivers/${receiver.id}/validate`, {
        message: `A test notification from the Berth console to ${receiver.name}`,
      })
      setState(answer?.sent ? { result: 'Sent.' } : { result: `Not sent: ${answer?.message ?? 'no reason given'}`, failed: true })
    } catch (error) {
      setState({ result: messageOf(error), failed: true })
    }
  }
  return (
    <>
      <button type="button" onClick={() => void send()} disabled={state.busy}>
        {state.busy ? 'Sending…' : 'Send a test'}
      </button>
      {state.result ? (
        <span class={state.failed ? 'error test-result' : 'note test-result'} role="status">
          {state.result}
        </span>
      ) : null}
    </>
  )
}

export function OrganizationAlerts({ organization, role }: OrganizationPageProps) {
  const rules = usePolled(
    () => api.get<{ results: AlertRule[] }>(`/organization/${organization.id}/alert-rules`),
    `alert-rules ${organization.id}`,
    10_000,
  )
  const receivers = useLoad(
    () => api.get<{ results: AlertReceiver[] }>(`/organization/${organization.id}/alert-receivers`),
    `alert-receivers ${organization.id}`,
  )
  const byId = new Map((receivers.data?.results ?? []).map((receiver) => [receiver.id, receiver]))
  const canTest = hasRole(role, 'WRITE')
  return (
    <>
      <section class="card" aria-labelledby="alert-rules-title">
        <h2 id="alert-rules-title">Alert rules</h2>
        <p class="note">Their state is read from Prometheus and Alertmanager every 10 s.</p>
        <ErrorMessage message={rules.error} />
        {rules.data ? (
          rules.data.results.length === 0 ? (
            <Empty next="Create one with the API's createAlertRule (docs/alerting.md).">This organization has no alert rule.</Empty>
          ) : (
            <RuleRows rules={rules.data.results} receivers={byId} />
          )
        ) : rules.error ? null : (
          <p class="loading">Loading…</p>
        )}
      </section>
      <section class="card" aria-labelledby="alert-receivers-title">
        <h2 id="alert-receivers-title">Receivers</h2>
        <Show loaded={receivers}>
          {({ results }) =>
            results.length === 0 ? (
              <Empty next="Create one with the API's createAlertReceiver: a Slack webhook or an e-mail address.">
                This organization has no receiver.
              </Empty>
            ) : (
              <ul class="alert-receivers">
                {results.map((receiver) => (
                  <li key={receiver.id} data-receiver={receiver.id}>
                    <strong>{receiver.name}</strong> <span class="badge">{receiver.type.toLowerCase()}</span>
                    <span class="note">
                      {receiver.type === 'EMAIL' ? ` to ${receiver.to} through ${receiver.smarthost}` : ' a Slack webhook'}
                      {receiver.send_resolved ? ', told when an alert ends' : ''}
                    </span>
                    {receiver.description ? <p class="note">{receiver.description}</p> : null}
                    {canTest ? <SendTest receiver={receiver} /> : null}
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
    </>
  )
}
