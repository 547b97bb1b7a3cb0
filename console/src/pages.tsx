import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, messageOf, session } from './api.ts'
import { toneOf, words } from './format.ts'
import { usePolled } from './polled.ts'
import type { Environment, List, Organization, Project } from './types.ts'

/** What an async load gave: the data, or the API's error message, or neither while it runs. */
export interface Loaded<T> {
  data?: T
  error?: string
}

/** Runs `load` whenever `key` changes; the answer of an older key is dropped. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> & { reload: () => void } {
  const [state, setState] = useState<Loaded<T>>({})
  const [round, setRound] = useState(0)
  // `key` names everything `load` reads.
  useEffect(() => {
    let current = true
    setState({})
    load().then(
      (data) => current && setState({ data }),
      (error: unknown) => current && setState({ error: messageOf(error) }),
    )
    return () => {
      current = false
    }
  }, [key, round])
  return { ...state, reload: () => setRound((n) => n + 1) }
}

export function ErrorMessage({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p class="error" role="alert">
      {message}
    </p>
  )
}

/** Shows `children(data)` once loaded, the error, or a loading line. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorMessage message={loaded.error} />
  if (loaded.data === undefined) return <p class="loading">Loading…</p>
  return <>{children(loaded.data)}</>
}

export interface Crumb {
  label: string
  href?: string
}

export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav class="breadcrumbs" aria-label="Breadcrumbs">
      <ol>
        {items.map((item) => (
          <li key={item.href ?? item.label}>{item.href ? <a href={item.href}>{item.label}</a> : <span aria-current="page">{item.label}</span>}</li>
        ))}
      </ol>
    </nav>
  )
}

export function SignIn({ reason, onSignedIn }: { reason: string | undefined; onSignedIn: () => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState<string | undefined>(reason)
  const [busy, setBusy] = useState(false)

  async function submit(event: Event) {
    event.preventDefault()
    const candidate = token.trim()
    if (!candidate) return setError('Paste an API token first.')
    setBusy(true)
    try {
      // `GET /organization` is the contract's authentication check.
      await api.get<List<Organization>>('/organization', candidate)
      session.signIn(candidate)
      onSignedIn()
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="sign-in">
      <h1>Berth console</h1>
      <form onSubmit={submit}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="berth_…"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p class="hint">
          Create one with <code>berth token create --org &lt;name&gt;</code>. It is kept in this tab only (session storage) and sent as{' '}
          <code>Authorization: Token …</code>.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <ErrorMessage message={error} />
      </form>
    </main>
  )
}

export function OrganizationsPage() {
  const loaded = useLoad(() => api.get<List<Organization>>('/organization'), 'organizations')
  return (
    <>
      <Breadcrumbs items={[{ label: 'Organizations' }]} />
      <Show loaded={loaded}>
        {({ results }) => (
          <LinkList
            empty="No organization."
            items={results.map((o) => ({ id: o.id, href: `#/organization/${o.id}`, label: o.name, note: o.description }))}
          />
        )}
      </Show>
    </>
  )
}

export function ProjectsPage({ organizationId }: { organizationId: string }) {
  const loaded = useLoad(
    () => Promise.all([api.get<Organization>(`/organization/${organizationId}`), api.get<List<Project>>(`/organization/${organizationId}/project`)]),
    organizationId,
  )
  return (
    <Show loaded={loaded}>
      {([organization, { results }]) => (
        <>
          <Breadcrumbs items={[{ label: 'Organizations', href: '#/' }, { label: organization.name }]} />
          <h2>Projects</h2>
          <LinkList
            empty="No project yet."
            items={results.map((p) => ({
              id: p.id,
              href: `#/project/${p.id}`,
              label: p.name,
              note: `${p.associated_environments_count} environment${p.associated_environments_count === 1 ? '' : 's'}`,
            }))}
          />
        </>
      )}
    </Show>
  )
}

/** Each environment's state, read every 5 s: the list shows their health. */
function useEnvironmentStates(projectId: string): Map<string, string> {
  const polled = usePolled(() => api.get<List<{ id: string; state: string }>>(`/project/${projectId}/environment/status`), projectId, 5000)
  return new Map((polled.data?.results ?? []).map((status) => [status.id, status.state]))
}

export function EnvironmentsPage({ projectId }: { projectId: string }) {
  const states = useEnvironmentStates(projectId)
  const loaded = useLoad(async () => {
    const [project, { results }] = await Promise.all([
      api.get<Project>(`/project/${projectId}`),
      api.get<List<Environment>>(`/project/${projectId}/environment`),
    ])
    return { project, organization: await api.get<Organization>(`/organization/${project.organization.id}`), environments: results }
  }, projectId)
  return (
    <Show loaded={loaded}>
      {({ project, organization, environments }) => (
        <>
          <Breadcrumbs
            items={[
              { label: 'Organizations', href: '#/' },
              { label: organization.name, href: `#/organization/${organization.id}` },
              { label: project.name },
            ]}
          />
          <h2>Environments</h2>
          <LinkList
            empty="No environment yet."
            items={environments.map((e) => ({
              id: e.id,
              href: `#/environment/${e.id}`,
              label: e.name,
              note: `${e.mode} · ${e.cluster_name}`,
              state: states.get(e.id),
            }))}
          />
        </>
      )}
    </Show>
  )
}

interface LinkItem {
  id: string
  href: string
  label: string
  note?: string | null | undefined
  /** A state word of the API, shown as a coloured badge. */
  state?: string | undefined
}

export function LinkList({ items, empty }: { items: LinkItem[]; empty: string }) {
  if (items.length === 0) return <p class="empty">{empty}</p>
  return (
    <ul class="links">
      {items.map((item) => (
        <li key={item.id}>
          <a href={item.href}>{item.label}</a>
          {item.state ? (
            <span class={`badge tone-${toneOf(item.state)}`} data-state={item.state}>
              {words(item.state)}
            </span>
          ) : null}
          {item.note ? <span class="note">{item.note}</span> : null}
        </li>
      ))}
    </ul>
  )
}
