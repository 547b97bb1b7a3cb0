// An organization's Webhooks page (docs/webhooks.md): its webhooks, a form to add one that sends a
// test delivery once created, and each webhook's attempts with what its target answered.
// Registered in ORGANIZATION_PAGES (organization-pages.tsx). Webhooks are the ADMINs' to manage.
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { formatTime, words } from './format.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { type Answer, hasRole, type ItemOf, type RequestOf } from './types.ts'
import { Empty, ErrorMessage, Show, useLoad } from './ui.tsx'

type Webhook = ItemOf<'listOrganizationWebHooks'>
type Attempt = ItemOf<'listWebhookEvent'>
type WebhookRequest = RequestOf<'createOrganizationWebhook'>
type WebhookEventWord = WebhookRequest['events'][number]

const EVENTS: WebhookEventWord[] = ['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCESSFUL', 'DEPLOYMENT_FAILURE', 'DEPLOYMENT_CANCELLED']

function Attempts({ base, webhookId }: { base: string; webhookId: string }) {
  const loaded = useLoad(() => api.get<Answer<'listWebhookEvent'>>(`${base}/${webhookId}/event`), webhookId)
  return (
    <Show loaded={loaded}>
      {({ results }) =>
        results.length === 0 ? (
          <p class="empty">Nothing sent yet.</p>
        ) : (
          <div class="table-wrap">
            <table class="attempts">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Event</th>
                  <th>Answer</th>
                  <th>Body</th>
                </tr>
              </thead>
              <tbody>
                {results.map((attempt: Attempt) => (
                  <tr key={attempt.id} data-testid="attempt">
                    <td>{formatTime(attempt.created_at)}</td>
                    <td>{words(attempt.matched_event)}</td>
                    <td>{attempt.target_response_status_code === 0 ? 'no answer' : attempt.target_response_status_code}</td>
                    <td class="note wrap">{attempt.target_response_body ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </Show>
  )
}

function NewWebhook({ base, onCreated }: { base: string; onCreated: (id: string) => void }) {
  const [kind, setKind] = useState<WebhookRequest['kind']>('STANDARD')
  const [url, setUrl] = useState('')
  const [secret, setSecret] = useState('')
  const [projects, setProjects] = useState('')
  const [events, setEvents] = useState<WebhookEventWord[]>(['DEPLOYMENT_SUCCESSFUL', 'DEPLOYMENT_FAILURE'])
  const [error, setError] = useState<string>()
  const submit = async () => {
    setError(undefined)
    try {
      const body: WebhookRequest = {
        kind,
        target_url: url.trim(),
        events,
        project_names_filter: projects
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
        ...(secret ? { target_secret: secret } : {}),
      }
      const created = await api.post<Webhook>(base, body)
      if (!created) return
      // A test delivery at once, so that the attempts show whether the target answers.
      await api.post(`${base}/${created.id}/test`)
      setUrl('')
      setSecret('')
      onCreated(created.id)
    } catch (failure) {
      setError(messageOf(failure))
    }
  }
  return (
    <form
      class="panel new-webhook"
      aria-label="New webhook"
      onSubmit={(event) => {
        event.preventDefault()
        void submit()
      }}
    >
      <h2>New webhook</h2>
      <ErrorMessage message={error} />
      <select aria-label="Kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as WebhookRequest['kind'])}>
        <option value="STANDARD">standard (JSON)</option>
        <option value="SLACK">Slack</option>
      </select>
      <input aria-label="Target URL" placeholder="https://…" required value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
      <input
        aria-label="Secret"
        type="password"
        placeholder="secret (optional)"
        value={secret}
        onInput={(event) => setSecret(event.currentTarget.value)}
      />
      <input
        aria-label="Projects"
        placeholder="projects, e.g. shop*, api (optional)"
        value={projects}
        onInput={(event) => setProjects(event.currentTarget.value)}
      />
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((event) => (
          <label key={event}>
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(change) => setEvents(change.currentTarget.checked ? [...events, event] : events.filter((e) => e !== event))}
            />
            {words(event)}
          </label>
        ))}
      </fieldset>
      <button type="submit">Create and send a test</button>
    </form>
  )
}

export function OrganizationWebhooks({ organization, role }: OrganizationPageProps) {
  const base = `/organization/${organization.id}/webhook`
  const [version, setVersion] = useState(0)
  const [open, setOpen] = useState<string>()
  const loaded = useLoad(() => api.get<Answer<'listOrganizationWebHooks'>>(base), `${organization.id}/${version}`)
  if (!hasRole(role, 'ADMIN')) return <Empty>Webhooks are for the organization's ADMINs to manage.</Empty>
  return (
    <div class="webhooks">
      <NewWebhook
        base={base}
        onCreated={(id) => {
          setOpen(id)
          setVersion(version + 1)
        }}
      />
      <section class="panel" aria-label="Webhooks">
        <h2>Webhooks</h2>
        <Show loaded={loaded}>
          {({ results }) =>
            results.length === 0 ? (
              <Empty>No webhook: nobody hears of deployments yet.</Empty>
            ) : (
              <ul class="links">
                {results.map((webhook: Webhook) => (
                  <li key={webhook.id} data-testid="webhook">
                    <strong class="wrap">{webhook.target_url}</strong>
                    <span class="chip">{words(webhook.kind)}</span>
                    {webhook.enabled ? null : <span class="chip">disabled</span>}
                    <span class="note">{webhook.events.map(words).join(', ')}</span>
                    <button type="button" onClick={() => setOpen(open === webhook.id ? undefined : webhook.id)}>
                      {open === webhook.id ? 'Hide attempts' : 'Attempts'}
                    </button>
                    <button
                      type="button"
                      onClick={() => {
                        void api.post(`${base}/${webhook.id}/test`).then(() => setVersion(version + 1))
                      }}
                    >
                      Send a test
                    </button>
                    {open === webhook.id ? <Attempts base={base} webhookId={`${webhook.id}`} key={`${webhook.id}/${version}`} /> : null}
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
    </div>
  )
}
