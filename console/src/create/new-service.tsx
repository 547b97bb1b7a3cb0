// Creating a service in an environment (WRITE and above): first its kind, then its form
// (kind-forms.tsx), each a deep link `#/environment/<id>/new/<segment>`.
import { useEffect } from 'preact/hooks'
import { api } from '../api.ts'
import { environmentCrumbs, loadEnvironmentContext } from '../context.ts'
import { KINDS, kindOfSegment } from '../kinds.ts'
import { place } from '../place.ts'
import { type GitToken, type HelmRepository, hasRole, type List, type Registry } from '../types.ts'
import { Breadcrumbs, Empty, Show, useLoad, usePageTitle } from '../ui.tsx'
import { CREATE_FORMS } from './kind-forms.tsx'

export function NewServicePage({ environmentId, segment }: { environmentId: string; segment: string | undefined }) {
  const loaded = useLoad(async () => {
    const context = await loadEnvironmentContext(environmentId)
    const base = `/organization/${context.organization.id}`
    const [registries, helmRepositories, gitTokens] = await Promise.all([
      api.get<List<Registry>>(`${base}/containerRegistry`),
      api.get<List<HelmRepository>>(`${base}/helmRepository`),
      api.get<List<GitToken>>(`${base}/gitToken`),
    ])
    return { context, registries: registries.results, helmRepositories: helmRepositories.results, gitTokens: gitTokens.results }
  }, environmentId)
  const kind = segment ? kindOfSegment(segment) : undefined
  const context = loaded.data?.context
  useEffect(() => {
    if (context) place.set({ organizationId: context.organization.id, projectId: context.project.id, environmentId })
  }, [context, environmentId])
  usePageTitle([kind ? `New ${kind.title.toLowerCase()}` : 'New service', context?.environment.name])
  // In the order the forms table lists them (applications first), not the registry's.
  const creatable = Object.keys(CREATE_FORMS).flatMap((type) => KINDS.filter((candidate) => candidate.type === type))
  return (
    <Show loaded={loaded}>
      {(data) => (
        <div class="new-service">
          <Breadcrumbs items={environmentCrumbs(data.context, { label: 'New service' })} />
          <header class="page-head">
            <h1>{kind ? `New ${kind.title.toLowerCase()}` : 'New service'}</h1>
          </header>
          {!hasRole(data.context.role, 'WRITE') ? (
            <Empty>Creating a service needs the WRITE role; your token has {data.context.role}.</Empty>
          ) : (
            <>
              <nav class="kind-choice" aria-label="Kind of service">
                {creatable.map((candidate) => (
                  <a
                    key={candidate.type}
                    href={`#/environment/${environmentId}/new/${candidate.segment}`}
                    class={`kind-card${candidate === kind ? ' current' : ''}`}
                    aria-current={candidate === kind ? 'page' : undefined}
                    data-kind={candidate.segment}
                  >
                    <strong>{candidate.title}</strong>
                    <span class="note">{CREATE_FORMS[candidate.type]!.describe}</span>
                  </a>
                ))}
              </nav>
              {kind && CREATE_FORMS[kind.type] ? (
                <section class="panel create-panel" aria-label={`New ${kind.title.toLowerCase()}`}>
                  <h2>{CREATE_FORMS[kind.type]!.describe}</h2>
                  {CREATE_FORMS[kind.type]!.form({
                    environmentId,
                    organizationId: data.context.organization.id,
                    segment: kind.segment,
                    registries: data.registries,
                    helmRepositories: data.helmRepositories,
                    gitTokens: data.gitTokens,
                  })}
                </section>
              ) : (
                <p class="hint">Choose what to create: each kind has its own form.</p>
              )}
            </>
          )}
        </div>
      )}
    </Show>
  )
}
