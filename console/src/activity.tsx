// An organization's Activity page: its audit log (docs/audit-log.md), newest first, with the
// reference's filters and paging, and each event's change shown as a diff of before and after.
// Registered in ORGANIZATION_PAGES (organization-pages.tsx). The log is the ADMINs' to read.
import { useState } from 'preact/hooks'
import { api } from './api.ts'
import { formatTime, words } from './format.ts'
import { KINDS } from './kinds.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { type Answer, hasRole } from './types.ts'
import { Empty, Show, useLoad } from './ui.tsx'

type EventPage = Answer<'getOrganizationEvents'>
type Event = EventPage['events'][number]

const EVENT_TYPES = ['CREATE', 'UPDATE', 'DELETE', 'TRIGGER_DEPLOY', 'TRIGGER_STOP', 'TRIGGER_RESTART', 'TRIGGER_DELETE', 'TRIGGER_CANCEL']
// The service kinds come from the kinds table; Argo CD's applications are Argo CD's changes, not audited here.
const TARGET_TYPES = [
  'ORGANIZATION',
  'PROJECT',
  'ENVIRONMENT',
  ...KINDS.map((kind) => kind.type).filter((type) => type !== 'GITOPS_APP'),
  'CLUSTER',
  'WEBHOOK',
  'MEMBERS_AND_ROLES',
]
const ORIGINS = ['API', 'CLI', 'CONSOLE', 'GIT', 'IAC_PROVIDER']

interface Change {
  id?: string
  name?: string
  execution_id?: string
  before?: Record<string, unknown>
  after?: Record<string, unknown>
}

const shown = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value))

/** An event's change as rows: each field that changed, what it was and what it became. */
function ChangeDiff({ change }: { change: string | null | undefined }) {
  if (!change) return null
  let parsed: Change
  try {
    parsed = JSON.parse(change) as Change
  } catch {
    return <pre class="change">{change}</pre>
  }
  if (parsed.execution_id) return <span class="note">deployment {parsed.execution_id}</span>
  const keys = [...new Set([...Object.keys(parsed.before ?? {}), ...Object.keys(parsed.after ?? {})])]
  if (keys.length === 0) return null
  return (
    <table class="diff">
      <tbody>
        {keys.map((key) => (
          <tr key={key}>
            <th>{key}</th>
            <td class="before">{shown(parsed.before?.[key])}</td>
            <td class="after">{shown(parsed.after?.[key])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Filter({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (value: string) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
      <option value="">any {label.toLowerCase()}</option>
      {options.map((option) => (
        <option key={option} value={option}>
          {words(option)}
        </option>
      ))}
    </select>
  )
}

export function OrganizationActivity({ organization, role }: OrganizationPageProps) {
  const first = `/organization/${organization.id}/events?pageSize=20`
  const [filters, setFilters] = useState({ eventType: '', targetType: '', origin: '', triggeredBy: '' })
  const query = Object.entries(filters)
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `&${key}=${encodeURIComponent(value)}`)
    .join('')
  const [path, setPath] = useState<string>()
  const current = path ?? `${first}${query}`
  const loaded = useLoad(() => api.get<EventPage>(current), current)
  if (!hasRole(role, 'ADMIN')) return <Empty>The activity of an organization is for its ADMINs to read.</Empty>
  const filter = (key: keyof typeof filters) => (value: string) => {
    setFilters({ ...filters, [key]: value })
    setPath(undefined)
  }
  return (
    <section class="panel activity" aria-label="Activity">
      <form class="inline-form" onSubmit={(event) => event.preventDefault()}>
        <Filter label="Event" value={filters.eventType} options={EVENT_TYPES} onChange={filter('eventType')} />
        <Filter label="Target" value={filters.targetType} options={TARGET_TYPES} onChange={filter('targetType')} />
        <Filter label="Origin" value={filters.origin} options={ORIGINS} onChange={filter('origin')} />
        <input
          aria-label="Triggered by"
          placeholder="triggered by (name or id)"
          value={filters.triggeredBy}
          onChange={(event) => filter('triggeredBy')(event.currentTarget.value.trim())}
        />
      </form>
      <Show loaded={loaded}>
        {(page) =>
          page.events.length === 0 ? (
            <Empty>No change matches.</Empty>
          ) : (
            <>
              <div class="table-wrap">
                <table class="events">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th>What</th>
                      <th>Target</th>
                      <th>Where</th>
                      <th>Who</th>
                      <th>Change</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.events.map((event: Event) => (
                      <tr key={event.id} data-testid="event">
                        <td>{event.timestamp ? formatTime(event.timestamp) : ''}</td>
                        <td>
                          {words(event.event_type ?? '')}
                          {event.sub_target_type ? <span class="chip">{words(event.sub_target_type)}</span> : null}
                        </td>
                        <td>
                          <span class="note">{words(event.target_type ?? '')}</span> {event.target_name}
                        </td>
                        <td>{[event.project_name, event.environment_name].filter(Boolean).join(' / ')}</td>
                        <td>
                          {event.triggered_by} <span class="chip">{words(event.origin ?? '')}</span>
                        </td>
                        <td>
                          <ChangeDiff change={event.change} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav class="pager" aria-label="Pages">
                <button type="button" disabled={!page.links?.previous} onClick={() => setPath(page.links?.previous)}>
                  Newer
                </button>
                <button type="button" disabled={!page.links?.next} onClick={() => setPath(page.links?.next)}>
                  Older
                </button>
              </nav>
            </>
          )
        }
      </Show>
    </section>
  )
}
