// An organization's pages, as one table: the navigation lists them and `#/organization/<id>/<page>`
// shows them. A feature adds its page (alerts, activity, webhooks…) as one entry here, its
// component in a file of its own.
import type { JSX } from 'preact'
import { useEffect } from 'preact/hooks'
import { OrganizationActivity } from './activity.tsx'
import { OrganizationAlerts } from './alerts.tsx'
import { api } from './api.ts'
import { ArgoCdSettings } from './argocd-settings.tsx'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { OrganizationOverview } from './overview.tsx'
import { place } from './place.ts'
import { OrganizationSettings } from './settings.tsx'
import type { CurrentRole, List, Organization } from './types.ts'
import { Empty, Show, useLoad, usePageTitle } from './ui.tsx'
import { OrganizationWebhooks } from './webhooks.tsx'

export interface OrganizationPageEntry {
  /** Its address: `#/organization/<id>/<id>` (the overview is the organization's own address). */
  id: string
  title: string
  render(props: OrganizationPageProps): JSX.Element
}

export const ORGANIZATION_PAGES: OrganizationPageEntry[] = [
  { id: 'overview', title: 'Overview', render: (props) => <OrganizationOverview {...props} /> },
  { id: 'settings', title: 'Settings', render: (props) => <OrganizationSettings {...props} /> },
  { id: 'argocd', title: 'Argo CD', render: (props) => <ArgoCdSettings {...props} /> },
  { id: 'activity', title: 'Activity', render: (props) => <OrganizationActivity {...props} /> },
  { id: 'webhooks', title: 'Webhooks', render: (props) => <OrganizationWebhooks {...props} /> },
  { id: 'alerts', title: 'Alerts', render: (props) => <OrganizationAlerts {...props} /> },
]

export function OrganizationPage({ organizationId, page }: { organizationId: string; page: string }) {
  const loaded = useLoad(
    () =>
      Promise.all([api.get<Organization>(`/organization/${organizationId}`), api.get<CurrentRole>(`/organization/${organizationId}/currentRole`)]),
    organizationId,
  )
  const entry = ORGANIZATION_PAGES.find((candidate) => candidate.id === page)
  useEffect(() => place.set({ organizationId }), [organizationId])
  usePageTitle([entry?.title ?? 'Not found', loaded.data?.[0].name])
  return (
    <Show loaded={loaded}>
      {([organization, { role }]) =>
        entry ? (
          <div class={`organization-page page-${entry.id}`}>
            <header class="page-head">
              <h1>{entry.id === 'overview' ? organization.name : entry.title}</h1>
              <span class="role" title="your role in this organization">
                {role}
              </span>
            </header>
            {entry.render({ organization, role })}
          </div>
        ) : (
          <Empty next={<a href={`#/organization/${organizationId}`}>Go to the organization's overview</a>}>This organization has no such page.</Empty>
        )
      }
    </Show>
  )
}

/** The console's home: the organization looked at last in this tab, else the first one, else the list. */
export function HomePage() {
  const organizations = useLoad(() => api.get<List<Organization>>('/organization'), 'organizations')
  useEffect(() => {
    const list = organizations.data?.results
    if (!list) return
    const last = place.lastOrganization()
    const chosen = list.find((organization) => organization.id === last) ?? (list.length === 1 ? list[0] : undefined)
    if (chosen) location.replace(`#/organization/${chosen.id}`)
    else location.replace('#/organizations')
  }, [organizations.data])
  usePageTitle([])
  return <Show loaded={organizations}>{() => <p class="loading">Loading…</p>}</Show>
}

export function OrganizationsPage() {
  const loaded = useLoad(() => api.get<List<Organization>>('/organization'), 'organizations')
  usePageTitle(['Organizations'])
  return (
    <>
      <header class="page-head">
        <h1>Organizations</h1>
      </header>
      <Show loaded={loaded}>
        {({ results }) =>
          results.length === 0 ? (
            <Empty next="Create one with berth org create, or ask an administrator to add you.">You are in no organization.</Empty>
          ) : (
            <ul class="cards">
              {results.map((organization) => (
                <li key={organization.id} class="card">
                  <a href={`#/organization/${organization.id}`}>{organization.name}</a>
                  {organization.description ? <p class="note">{organization.description}</p> : null}
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </>
  )
}
