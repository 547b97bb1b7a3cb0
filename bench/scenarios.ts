// The requests the issue measures, as URLs on a server of the seeded data.
import type { Target } from './load.ts'

/** The deep page starts after this entry of the big history, counted newest first. */
export const DEEP_PAGE_POSITION = 50_000
export const PAGE_SIZE = 20
/** The repository of the loopback GitHub whose branches are listed. */
export const BRANCH_REPOSITORY = 'acme/platform'

export type BerthScenario = 'historyFirst' | 'historyDeep' | 'historySmall' | 'organization' | 'healthz' | 'branchesCached'

type TitledScenario = BerthScenario | 'branchesCold' | 'ceiling' | 'prism' | 'freshness' | 'dockerDeploy' | 'databaseBackup'

export const SCENARIO_TITLES: Record<TitledScenario, string> = {
  historyFirst: '1. history, first page, 100k environment',
  historyDeep: '2. history, deep page (startId at entry 50,000)',
  historySmall: '3. history, first page, 1k environment',
  organization: '4. GET /organization (Token)',
  healthz: '4. GET /healthz (no auth)',
  branchesCached: '5. branch listing, cached',
  branchesCold: '5. branch listing, cold',
  ceiling: '6. same bytes as 1., bare node:http',
  prism: '6. same route, Prism mock',
  freshness: '7. a change on one of two servers, first page of 3.',
  dockerDeploy: '8. a small container deployed through the Docker executor, beside docker run',
  databaseBackup: '9. a 200 MB PostgreSQL backup through Berth, beside pg_dump | gzip by hand',
}

export interface SeededIds {
  organizationId: string
  authorization: string
  bigEnvironmentId: string
  smallEnvironmentId: string
  deepStartId: string
  gitTokenId: string
}

export const historyPath = (environmentId: string, startId?: string) =>
  `/environment/${environmentId}/deploymentHistoryV2?pageSize=${PAGE_SIZE}${startId ? `&startId=${startId}` : ''}`

export const branchesPath = (ids: SeededIds) =>
  `/organization/${ids.organizationId}/account/github/repository/branch?name=${encodeURIComponent(BRANCH_REPOSITORY)}&gitTokenId=${ids.gitTokenId}`

/**
 * Authentication alone: a request that fails validation (400) right after authenticating, against
 * the same request without credentials (401 before anything else); the difference is what checking
 * a token costs, without the route's own work.
 */
export function authOnlyTargets(baseUrl: string, ids: SeededIds): { withToken: Target; withoutToken: Target } {
  const url = `${baseUrl}/environment/not-a-uuid/deploymentHistoryV2`
  return { withToken: { url, headers: { authorization: ids.authorization } }, withoutToken: { url } }
}

/** Berth's scenarios on the server at `baseUrl`. */
export function berthTargets(baseUrl: string, ids: SeededIds): Record<BerthScenario, Target> {
  const authorized = (path: string): Target => ({ url: `${baseUrl}${path}`, headers: { authorization: ids.authorization } })
  return {
    historyFirst: authorized(historyPath(ids.bigEnvironmentId)),
    historyDeep: authorized(historyPath(ids.bigEnvironmentId, ids.deepStartId)),
    historySmall: authorized(historyPath(ids.smallEnvironmentId)),
    organization: authorized('/organization'),
    healthz: { url: `${baseUrl}/healthz` },
    branchesCached: authorized(branchesPath(ids)),
  }
}
