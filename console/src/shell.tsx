// The frame around every page: a left navigation (organization switcher, the organization's pages,
// its projects and their environments), kept across pages; on a narrow window it folds behind a
// Menu button. It follows the place the page reports (place.ts).
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, session } from './api.ts'
import { ORGANIZATION_PAGES } from './organization-pages.tsx'
import { type Place, place } from './place.ts'
import { usePolled } from './polled.ts'
import type { Environment, List, Organization, Project } from './types.ts'
import { useLoad } from './ui.tsx'

const NAVIGATION_POLL_MS = 15_000

function usePlace(): Place {
  const [current, setCurrent] = useState(place.get())
  // A page's effects run before the shell's: the place it set on its first render is read here, once subscribed.
  useEffect(() => {
    setCurrent(place.get())
    return place.subscribe(setCurrent)
  }, [])
  return current
}

export function Shell({ children }: { children: ComponentChildren }) {
  const here = usePlace()
  const [open, setOpen] = useState(false)
  // Following a link of the navigation folds it again on a narrow window.
  useEffect(() => {
    const close = () => setOpen(false)
    window.addEventListener('hashchange', close)
    return () => window.removeEventListener('hashchange', close)
  }, [])
  return (
    <div class={`shell${open ? ' nav-open' : ''}`}>
      <button type="button" class="skip" onClick={() => document.getElementById('content')?.focus()}>
        Skip to the page
      </button>
      <header class="top">
        <button type="button" class="menu secondary" aria-expanded={open} aria-controls="navigation" onClick={() => setOpen((value) => !value)}>
          Menu
        </button>
        <a class="brand" href="#/">
          <span class="logo" aria-hidden="true" />
          Berth
        </a>
        <button type="button" class="secondary sign-out" data-action="sign-out" onClick={() => session.signOut()}>
          Sign out
        </button>
      </header>
      <nav id="navigation" class="side" aria-label="Navigation">
        <OrganizationSwitcher current={here.organizationId} />
        {here.organizationId ? <OrganizationNav organizationId={here.organizationId} here={here} /> : null}
      </nav>
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  )
}

function OrganizationSwitcher({ current }: { current: string | undefined }) {
  const organizations = useLoad(() => api.get<List<Organization>>('/organization'), 'organizations')
  const list = organizations.data?.results ?? []
  return (
    <div class="switcher">
      <label for="organization-switcher" class="label">
        Organization
      </label>
      <select
        id="organization-switcher"
        data-action="switch-organization"
        value={current ?? ''}
        onChange={(event) => {
          location.hash = `#/organization/${event.currentTarget.value}`
        }}
      >
        {current ? null : <option value="">Choose…</option>}
        {list.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The organization's pages, then each project with its environments. */
function OrganizationNav({ organizationId, here }: { organizationId: string; here: Place }) {
  // Read again now and then: projects and environments made elsewhere show, and a failed read is tried again.
  const tree = usePolled(
    async () => {
      const { results: projects } = await api.get<List<Project>>(`/organization/${organizationId}/project`)
      const environments = await Promise.all(projects.map((project) => api.get<List<Environment>>(`/project/${project.id}/environment`)))
      return projects.map((project, index) => ({ project, environments: environments[index]!.results }))
    },
    organizationId,
    NAVIGATION_POLL_MS,
  )
  const hash = location.hash
  return (
    <>
      <ul class="nav-pages">
        {ORGANIZATION_PAGES.map((page) => {
          const href = page.id === 'overview' ? `#/organization/${organizationId}` : `#/organization/${organizationId}/${page.id}`
          return (
            <li key={page.id}>
              <a href={href} aria-current={hash === href ? 'page' : undefined}>
                {page.title}
              </a>
            </li>
          )
        })}
      </ul>
      <h2 class="nav-heading">Projects</h2>
      {tree.error && !tree.data ? <p class="error">{tree.error}</p> : null}
      {tree.data?.length === 0 ? <p class="hint">No project yet: create one with the API or the CLI.</p> : null}
      <ul class="nav-projects">
        {(tree.data ?? []).map(({ project, environments }) => (
          <li key={project.id}>
            <a href={`#/project/${project.id}`} aria-current={here.projectId === project.id && !here.environmentId ? 'page' : undefined}>
              {project.name}
            </a>
            <ul>
              {environments.map((environment) => (
                <li key={environment.id}>
                  <a href={`#/environment/${environment.id}`} aria-current={here.environmentId === environment.id ? 'location' : undefined}>
                    {environment.name}
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </>
  )
}
