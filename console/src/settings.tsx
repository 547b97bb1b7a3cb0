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
          <section class="panel" aria-label="Organization">
            <h2>Organization</h2>
            <dl class="facts">
              <dt>Name</dt>
              <dd>{organization.name}</dd>
              <dt>Your role</dt>
              <dd>{role}</dd>
            </dl>
          </section>
          <section class="panel" aria-label="Git tokens">
            <h2>Git tokens</h2>
            {tokens.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/gitToken: applications, jobs, helm and IAC services from git need one.">
                No git token.
              </Empty>
            ) : (
              <ul class="links">
                {tokens.results.map((token) => (
                  <li key={token.id}>
                    <strong>{token.name}</strong>
                    <span class="chip">{token.type.toLowerCase()}</span>
                    {token.workspace ? <span class="note">workspace {token.workspace}</span> : null}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="panel" aria-label="Container registries">
            <h2>Container registries</h2>
            {registries.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/containerRegistry: containers and image jobs need one.">No container registry.</Empty>
            ) : (
              <ul class="links">
                {registries.results.map((registry) => (
                  <li key={registry.id}>
                    <strong>{registry.name}</strong>
                    <span class="note wrap">{registry.url}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="panel" aria-label="Helm repositories">
            <h2>Helm repositories</h2>
            {repositories.results.length === 0 ? (
              <Empty next="Add one with POST /organization/{id}/helmRepository: helm services from a repository need one.">No helm repository.</Empty>
            ) : (
              <ul class="links">
                {repositories.results.map((repository) => (
                  <li key={repository.id}>
                    <strong>{repository.name}</strong>
                    <span class="note wrap">{repository.url}</span>
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
