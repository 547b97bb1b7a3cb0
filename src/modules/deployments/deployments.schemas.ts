import { type Static, type TSchema, Type } from 'typebox'
import { ACTION_STATUSES, ORIGINS, SERVICE_TYPES, STAGE_STATUSES, STATES, TRIGGER_ACTIONS } from '#src/platform/deployment-states.ts'
import { Origin, StateEnum, StatusDetails } from '#src/platform/deployment-status.schemas.ts'
import { Commit } from '#src/platform/git-commit.schemas.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

const Duration = Type.String({ format: 'duration', description: 'ISO 8601 duration' })

// --- deployment history (contract 2.2-2.9) -------------------------------------------------

const AuditingData = Type.Object(
  {
    created_at: DateTime,
    updated_at: DateTime,
    triggered_by: Type.String({ description: 'the user or API token that triggered' }),
    origin: Type.Optional(Origin),
  },
  { title: 'DeploymentHistoryAuditingData' },
)

const CommitOrNull = Nullable(Commit)

const Arguments = Type.Array(Type.String())
const LifecycleSchedule = Type.Object({ arguments: Arguments, entrypoint: Type.Optional(Type.String()) }, { title: 'JobLifecyleSchedule' })

/** Berth extension, on the details of every kind: the execution a rollback deploys again. */
const RESTORES = {
  restores_execution_id: Type.Optional(Type.String({ description: 'Berth extension: on a rollback, the execution whose snapshot it deploys again' })),
}

/** Contract 2.7: the shape depends on the service's kind; no discriminator. */
const ServiceDetails = Type.Union(
  [
    Type.Object({ commit: CommitOrNull, build_pod_name: Type.String(), ...RESTORES }, { description: 'ApplicationDeploymentHistoryData' }),
    Type.Object(
      { image_name: Type.String(), tag: Type.String(), arguments: Arguments, entrypoint: Type.Optional(Type.String()), ...RESTORES },
      { description: 'ContainerDeploymentHistoryData' },
    ),
    Type.Object(
      {
        image_name: Type.String(),
        tag: Type.String(),
        commit: Type.Optional(CommitOrNull),
        schedule: Type.Optional(
          Type.Object({
            on_start: Type.Optional(LifecycleSchedule),
            on_stop: Type.Optional(LifecycleSchedule),
            on_delete: Type.Optional(LifecycleSchedule),
            cron_job: Type.Optional(
              Type.Object({ arguments: Arguments, entrypoint: Type.Optional(Type.String()), scheduled_at: Type.String(), timezone: Type.String() }),
            ),
            lifecycle_type: Type.Optional(Enum(['GENERIC', 'IAC', 'CLOUDTEMPLATE'], 'JobLifecycleTypeEnum')),
          }),
        ),
        job_type: Enum(['CRON', 'LIFECYCLE'], 'JobType'),
        build_pod_name: Type.Optional(Nullable(Type.String())),
        ...RESTORES,
      },
      { description: 'JobDeploymentHistoryDetails' },
    ),
    Type.Object(
      {
        database_type: Type.String({ description: 'POSTGRESQL, MYSQL, MONGODB or REDIS' }),
        version: Type.String(),
        mode: Type.String({ description: 'CONTAINER or MANAGED' }),
        ...RESTORES,
      },
      { description: 'Berth extension: DatabaseDeploymentHistoryDetails (the contract shows no database shape)' },
    ),
    Type.Object(
      {
        commit: Type.Optional(CommitOrNull),
        git_commit_id: Type.Optional(Type.String({ description: 'the commit the deploy named; absent: the head of the branch' })),
        engine: Type.String({ description: 'TERRAFORM or OPEN_TOFU' }),
        engine_version: Type.String(),
        resource_count: Type.Optional(Type.Integer({ description: 'the resources the state holds after an apply' })),
        ...RESTORES,
      },
      { description: 'Berth extension: IacDeploymentHistoryDetails (the reference shows no shape for its terraform services)' },
    ),
    Type.Object(
      {
        commit: Type.Optional(CommitOrNull),
        repository: Type.Optional(Type.Object({ chart_name: Type.String(), chart_version: Type.String() })),
        git_commit_id: Type.Optional(
          Type.String({
            description:
              'Berth extension: the commit a deploy of a chart in git named (`commit` is the commit fetched, once a Kubernetes executor fetched it; null until then, and with the simulated executor)',
          }),
        ),
        ...RESTORES,
      },
      { description: 'HelmDeploymentHistoryDetails' },
    ),
  ],
  { title: 'DeploymentHistoryServiceDetails' },
)

const Message = Nullable(Type.String({ description: 'Berth extension: why it failed or ended as it did; null when there is nothing to say' }))

export const DeploymentHistoryService = Type.Object(
  {
    identifier: Type.Object({
      name: Type.String(),
      service_id: Uuid,
      service_type: Enum(SERVICE_TYPES, 'ServiceTypeEnum'),
      execution_id: Type.String(),
    }),
    status: StateEnum,
    auditing_data: AuditingData,
    details: ServiceDetails,
    status_details: StatusDetails,
    icon_uri: Type.String({ format: 'uri' }),
    total_duration: Duration,
    message: Message,
  },
  { title: 'DeploymentHistoryService' },
)

export const DeploymentHistoryEnvironmentV2 = Type.Object(
  {
    identifier: Type.Object({ execution_id: Type.String(), environment_id: Uuid }),
    auditing_data: AuditingData,
    status: StateEnum,
    trigger_action: Enum(TRIGGER_ACTIONS, 'DeploymentHistoryTriggerAction'),
    total_duration: Duration,
    stages: Type.Array(
      Type.Object(
        { name: Type.String(), status: Enum(STAGE_STATUSES, 'StageStatusEnum'), duration: Duration, services: Type.Array(DeploymentHistoryService) },
        { title: 'DeploymentHistoryStage' },
      ),
    ),
    action_status: Enum(ACTION_STATUSES, 'DeploymentHistoryActionStatus'),
    message: Message,
  },
  { title: 'DeploymentHistoryEnvironmentV2' },
)

const page = <T extends TSchema>(item: T, title: string) =>
  Type.Object(
    {
      page: Type.Integer({ minimum: 1, description: 'the number of this page, 1 for the newest entries' }),
      page_size: Type.Integer({ minimum: 1, maximum: 100 }),
      results: Type.Array(item, { description: 'newest first' }),
      next_start_id: Nullable(Type.String({ description: 'Berth extension: the startId of the next page; null on the last page' })),
      has_more: Type.Boolean({ description: 'Berth extension: whether older entries follow' }),
    },
    { title },
  )

export const EnvironmentHistoryPage = page(DeploymentHistoryEnvironmentV2, 'DeploymentHistoryEnvironmentPaginatedResponseListV2')
export const ServiceHistoryPage = page(DeploymentHistoryService, 'DeploymentHistoryServicePaginatedResponseListV2')

export const HistoryQuery = Type.Object({
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'how many entries the page holds, 1 to 100' }),
  startId: Type.Optional(
    Type.String({ format: 'uuid', description: 'the execution id of the last entry you have; the page holds the entries after it (older)' }),
  ),
  status: Type.Optional(Enum(STATES, 'StateEnum', 'Berth extension: only entries in this state')),
  trigger_action: Type.Optional(Enum(TRIGGER_ACTIONS, 'DeploymentHistoryTriggerAction', 'Berth extension: only entries of this trigger')),
  origin: Type.Optional(Enum(ORIGINS, 'OrganizationEventOrigin', 'Berth extension: only entries of this origin')),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Berth extension: only entries created at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Berth extension: only entries created before this instant' })),
})
export type HistoryQuery = Static<typeof HistoryQuery>

// --- statuses and triggers -------------------------------------------------------------------

export const CancelRequest = Type.Object({
  force_cancel: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'accepted for compatibility: a cancel always stops what runs, a running job included, so forcing it changes nothing',
    }),
  ),
})

/** `dry_run` of the deploy actions, in the form the reference gives it (deployCluster's). */
export const DRY_RUN_PROPERTIES = {
  dry_run: Type.Optional(
    Type.Boolean({
      description:
        'default: false. Decide if the deployment should be done in dry_run mode, avoiding any changes: a DEPLOY_DRY_RUN pulls or builds ' +
        'what a deploy would and says in its logs what would change, and changes nothing running (Berth: on Kubernetes, the diff of the release\'s rendered objects against the running release; docs/rollbacks.md, "Dry runs")',
    }),
  ),
}
export const DryRunQuery = Type.Object(DRY_RUN_PROPERTIES)
