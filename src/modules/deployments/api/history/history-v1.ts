import type { Static } from 'typebox'
import { Type } from 'typebox'
import type { Origin as OriginWord } from '#src/platform/deployment-states.ts'
import { Origin } from '#src/platform/deployment-status.schemas.ts'

// The v1 environment history (`listEnvironmentDeploymentHistory`), which the CLI's `environment
// deployment list` still reads: the V2 entries of the same page, each told the v1 way (one object
// per deployment, its services grouped by kind with their own status).

const Commit = Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]))
const ServiceBase = {
  id: Type.String({ format: 'uuid' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  name: Type.String(),
  status: Type.String(),
}
const Service = Type.Object(ServiceBase)
const ContainerLike = Type.Object({
  ...ServiceBase,
  image_name: Type.Optional(Type.String()),
  tag: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.Array(Type.String())),
  entrypoint: Type.Optional(Type.String()),
  commit: Commit,
})
const WithCommit = Type.Object({ ...ServiceBase, commit: Commit })
const Helm = Type.Object({
  ...ServiceBase,
  commit: Commit,
  repository: Type.Optional(Type.Union([Type.Object({ chart_name: Type.String(), chart_version: Type.String() }), Type.Null()])),
})

export const DeploymentHistoryEnvironment = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'the execution id of the deployment' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    status: Type.String(),
    origin: Type.Optional(Origin),
    triggered_by: Type.Optional(Type.String()),
    applications: Type.Array(WithCommit),
    containers: Type.Array(ContainerLike),
    databases: Type.Array(Service),
    jobs: Type.Array(ContainerLike),
    helms: Type.Array(Helm),
  },
  { title: 'DeploymentHistoryEnvironment' },
)
export const DeploymentHistoryEnvironmentPage = Type.Object(
  { page: Type.Number(), page_size: Type.Number(), results: Type.Array(DeploymentHistoryEnvironment) },
  { title: 'DeploymentHistoryEnvironmentPaginatedResponseList' },
)
export type DeploymentHistoryEnvironmentPage = Static<typeof DeploymentHistoryEnvironmentPage>

/** A V2 entry as the rendered page holds it (contract 2.3 to 2.9), of which the v1 shape takes a part. */
interface EntryV2 {
  identifier: { execution_id: string }
  auditing_data: { created_at: string; updated_at?: string; origin?: OriginWord; triggered_by?: string }
  status: string
  stages: {
    services: {
      identifier: { name: string; service_id: string; service_type: string }
      auditing_data: { created_at: string; updated_at?: string }
      status: string
      details?: Record<string, unknown> | null
    }[]
  }[]
}

const KIND_LIST = { APPLICATION: 'applications', CONTAINER: 'containers', DATABASE: 'databases', JOB: 'jobs', HELM: 'helms' } as const

/** The v1 page of a rendered V2 page (its JSON text). */
export function v1Page(renderedV2: Buffer): DeploymentHistoryEnvironmentPage {
  const page = JSON.parse(renderedV2.toString('utf8')) as { page: number; page_size: number; results: EntryV2[] }
  return { page: page.page, page_size: page.page_size, results: page.results.map(v1Entry) }
}

function v1Entry(entry: EntryV2): Static<typeof DeploymentHistoryEnvironment> {
  const lists = { applications: [], containers: [], databases: [], jobs: [], helms: [] } as Record<string, unknown[]>
  for (const service of entry.stages.flatMap((stage) => stage.services)) {
    const list = KIND_LIST[service.identifier.service_type as keyof typeof KIND_LIST]
    if (!list) continue
    // The kind's details (contract 2.7) carry what v1 shows of each service: image, tag, commit, chart.
    lists[list]!.push({
      ...(service.details ?? {}),
      id: service.identifier.service_id,
      created_at: service.auditing_data.created_at,
      updated_at: service.auditing_data.updated_at,
      name: service.identifier.name,
      status: service.status,
    })
  }
  return {
    id: entry.identifier.execution_id,
    created_at: entry.auditing_data.created_at,
    updated_at: entry.auditing_data.updated_at,
    status: entry.status,
    origin: entry.auditing_data.origin,
    triggered_by: entry.auditing_data.triggered_by,
    ...(lists as Pick<Static<typeof DeploymentHistoryEnvironment>, 'applications' | 'containers' | 'databases' | 'jobs' | 'helms'>),
  }
}
