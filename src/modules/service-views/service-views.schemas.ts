import { Type } from 'typebox'
import { StateEnum } from '#src/platform/deployment-status.schemas.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's v1 per-kind history entries, its v1 environment log line and its deployment status by request.

const Base = {
  id: Type.String({ format: 'uuid', description: "the deployment's execution id (what `startId` takes)" }),
  created_at: DateTime,
  updated_at: Type.Optional(DateTime),
  name: Type.String({ description: 'name of the service' }),
}

export const Commit = Type.Object(
  {
    created_at: Type.Optional(DateTime),
    git_commit_id: Type.String(),
    tag: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    author_name: Type.Optional(Type.String()),
    author_avatar_url: Type.Optional(Type.String()),
    commit_page_url: Type.Optional(Type.String()),
  },
  { title: 'Commit', additionalProperties: true },
)

const Page = { page: Type.Number(), page_size: Type.Number() }

export const ApplicationHistoryPage = Type.Object(
  {
    ...Page,
    results: Type.Array(
      Type.Object(
        {
          ...Base,
          commit: Type.Optional(Nullable(Commit)),
          status: Type.Optional(
            Enum(['FAILED', 'SUCCESS'], 'DeploymentHistoryStatusEnum', 'FAILED or SUCCESS once the deployment ended; absent while it runs'),
          ),
        },
        { title: 'DeploymentHistory' },
      ),
    ),
  },
  { title: 'DeploymentHistoryPaginatedResponseList' },
)

const ContainerLike = {
  ...Base,
  status: StateEnum,
  image_name: Type.Optional(Type.String()),
  tag: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.Array(Type.String())),
  entrypoint: Type.Optional(Type.String()),
}

export const KIND_HISTORY_PAGES = {
  CONTAINER: Type.Object(
    { ...Page, results: Type.Array(Type.Object(ContainerLike, { title: 'DeploymentHistoryContainer' })) },
    { title: 'ContainerDeploymentHistoryPaginatedResponseList' },
  ),
  JOB: Type.Object(
    {
      ...Page,
      results: Type.Array(
        Type.Object(
          {
            ...ContainerLike,
            commit: Type.Optional(Nullable(Commit)),
            schedule: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
          },
          { title: 'DeploymentHistoryJobResponse' },
        ),
      ),
    },
    { title: 'DeploymentHistoryJobPaginatedResponseList' },
  ),
  DATABASE: Type.Object(
    { ...Page, results: Type.Array(Type.Object({ ...Base, status: StateEnum }, { title: 'DeploymentHistoryDatabase' })) },
    { title: 'DeploymentHistoryDatabasePaginatedResponseList' },
  ),
  HELM: Type.Object(
    {
      ...Page,
      results: Type.Array(
        Type.Object(
          {
            ...Base,
            status: StateEnum,
            commit: Type.Optional(Nullable(Commit)),
            repository: Type.Optional(Nullable(Type.Object({ chart_name: Type.String(), chart_version: Type.String() }))),
          },
          { title: 'DeploymentHistoryHelmResponse' },
        ),
      ),
    },
    { title: 'DeploymentHistoryHelmPaginatedResponseList' },
  ),
}

export const HistoryV1Query = Type.Object({
  startId: Type.Optional(
    Type.String({ format: 'uuid', description: 'the execution id of the last entry you have; the page holds the entries after it' }),
  ),
})

export const EnvironmentLogList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          id: Uuid,
          created_at: DateTime,
          scope: Type.Object({
            type: Enum(
              ['APPLICATION', 'DATABASE', 'ENVIRONMENT'],
              'EnvironmentLogTypeEnum',
              'DATABASE, ENVIRONMENT, or APPLICATION for every other kind',
            ),
            name: Type.String(),
            id: Uuid,
          }),
          message: Nullable(Type.String()),
          execution_id: Type.String(),
          hint: Type.Optional(Type.String()),
        },
        { title: 'EnvironmentLog' },
      ),
    ),
  },
  { title: 'EnvironmentLogResponseList' },
)

export const DeploymentStatusQuery = Type.Object({ deploymentRequestId: Uuid })

export const EnvDeploymentStatus = Type.Object(
  { deployment_request_id: Uuid, environment_id: Uuid, status: StateEnum },
  { title: 'EnvDeploymentStatus' },
)
