// An organization's settings as the console shows them: the git tokens, container registries and
// helm repositories its services are made from, by name. They are created with the API or the CLI.
import { api } from './api.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import type { GitToken, HelmRepository, List, Registry } from './types.ts'
import { Empty, Show, useLoad } from './ui.tsx'

export function OrganizationSettings({ organization, role }: OrganizationPageProps) {
  const base = `/organization/${organization.id}`
  const loaded = useLoad(
    () =>
      Promise.all([
        api.get<List<GitToken>>(`${base}/gitToken`),
        api.get<List<Registry>>(`${base}/containerRegistry`),
        api.get<List<HelmRepository>>(`${base}/helmRepository`),
      ]),
    organization.id,
  )
  return (
    <Show loaded={loaded}>
      {([tokens, registries, repositories]) => (
        <div class="settings">
          <dl class="facts">
            <dt>Name</dt>
            <dd>{organization.name}</dd>
            <dt>Your role</dt>
            <dd>{role}</dd>
          </dl>
          <section aria-label="Git tokens">
            <h2>Git tokens</h2>
            {tokens.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/gitToken: applications, jobs, helm and IAC services from git need one.">
                No git token.
              </Empty>
            ) : (
              <ul class="cards compact">
                {tokens.results.map((token) => (
                  <li key={token.id} class="card">
                    <strong>{token.name}</strong> <span class="note">{token.type}</span>
                    {token.workspace ? <span class="note"> workspace {token.workspace}</span> : null}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label="Container registries">
            <h2>Container registries</h2>
            {registries.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/containerRegistry: containers and image jobs need one.">No container registry.</Empty>
            ) : (
              <ul class="cards compact">
                {registries.results.map((registry) => (
                  <li key={registry.id} class="card">
                    <strong>{registry.name}</strong> <span class="note">{registry.url}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label="Helm repositories">
            <h2>Helm repositories</h2>
            {repositories.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/helmRepository: helm services from a repository need one.">No helm repository.</Empty>
            ) : (
              <ul class="cards compact">
                {repositories.results.map((repository) => (
                  <li key={repository.id} class="card">
                    <strong>{repository.name}</strong> <span class="note">{repository.url}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
      )}
    </Show>
  )
}
