import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { DeploymentHistoryRepository, HistoryPageQuery, StoredPage } from './deployment-history.repository.ts'
import { createHistoryPageCache, type RenderedPage } from './history-page-cache.ts'
import { bodyTag, type HistoryPage, historyPageJson } from './history-pages.ts'
import type { EnvironmentVersion, HistoryVersionCache } from './history-versions.ts'

// The history read model: pages of an environment's or a service's deployment history, rendered
// from the stored entries, kept by the history's version, and named by ETags. A request flows down
// and comes back once with the rendered page; the route only compares the tag with If-None-Match.

export interface DeploymentHistoryDeps {
  history: DeploymentHistoryRepository
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  organizations: Pick<OrganizationsService, 'requireScoped'>
  requireService: RequireService
  /** Bytes of rendered environment pages kept per process. */
  pageCacheBytes: number
  /** Environments' organizations and history versions, remembered while changes are announced; absent: read at every request. */
  versions?: HistoryVersionCache
  clock?: () => number
}

const unknownStartId = () =>
  validationFailed([{ path: '/startId', message: 'is not the execution id of an entry of this history', location: 'query' }])

/** A page rendered as JSON (the stored entries joined) with its ETag. */
function render(stored: StoredPage, query: HistoryPageQuery): RenderedPage {
  const page: HistoryPage = { ...stored, page: Math.floor(stored.before / query.pageSize) + 1, pageSize: query.pageSize }
  const body = Buffer.from(historyPageJson(page))
  return { body, tag: bodyTag(body) }
}

export function createDeploymentHistoryService(deps: DeploymentHistoryDeps) {
  const { history, versions, clock = Date.now } = deps
  // Pollers and busy consoles ask for the same pages over and over; the history's version says when one changed.
  const pages = createHistoryPageCache({ maxBytes: deps.pageCacheBytes })

  /** The environment's organization and current history version: remembered, or read (and remembered unless a change was announced meanwhile). */
  async function environmentVersion(environmentId: string): Promise<EnvironmentVersion | undefined> {
    const now = clock()
    const known = versions?.get(environmentId, now)
    if (known) return known
    const generation = versions?.generation ?? 0
    const found = await history.environmentVersion(environmentId)
    // An unknown id is not remembered: creating an environment is not announced.
    if (found) versions?.set(environmentId, found, generation, now)
    return found
  }

  return {
    /**
     * A page of the environment's history, newest first; served from the page kept for the
     * history's current version when there is one. The caller's access is checked every time,
     * before anything of the page is looked at.
     */
    async environmentPage(principal: Principal, id: string, query: HistoryPageQuery): Promise<RenderedPage> {
      // As PostgreSQL writes it, and announces it: a UUID in capitals names the same environment.
      const environmentId = id.toLowerCase()
      const found = await environmentVersion(environmentId)
      if (!found) throw notFound('environment')
      await deps.organizations
        .requireScoped(principal, found.organizationId, { kind: 'environmentId', environmentId }, 'READ')
        .catch(asNotFound('environment'))
      const key = JSON.stringify([environmentId, query])
      let page = pages.get(key, found.version)
      if (!page) {
        const stored = await history.environmentPage(environmentId, query)
        if (!stored) throw unknownStartId()
        page = render(stored, query)
        pages.set(key, found.version, page)
      }
      return page
    },

    /** A page of one service's history, newest first. */
    async servicePage(principal: Principal, serviceId: string, type: ServiceType, query: HistoryPageQuery): Promise<RenderedPage> {
      const { service } = await deps.requireService(principal, serviceId, 'READ', type)
      const stored = await history.servicePage(service.id, query)
      if (!stored) throw unknownStartId()
      return render(stored, query)
    },
  }
}

export type DeploymentHistoryService = ReturnType<typeof createDeploymentHistoryService>
