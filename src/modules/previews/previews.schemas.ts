import { Type } from 'typebox'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

export const OrganizationContainerPreviewRequest = Type.Object(
  {
    image_name: Type.String({ minLength: 1, maxLength: 512, description: 'the container image name to trigger preview environment' }),
    tag: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$',
      description: 'the tag to be used in the preview environment',
    }),
  },
  { title: 'OrganizationContainerPreviewRequest' },
)

export const PreviewEnvironment = Type.Object(
  {
    id: Uuid,
    environment_id: Nullable(Uuid),
    environment_name: Nullable(Type.String({ description: 'null while the clone is being made' })),
    source_environment_id: Nullable(Uuid),
    kind: Type.Union([Type.Literal('PULL_REQUEST'), Type.Literal('CONTAINER_TAG')]),
    provider: Type.String({ description: 'GITHUB, GITLAB, BITBUCKET; CONTAINER for an image tag' }),
    repository: Type.String({ description: 'provider:owner/name (lower case) of the pull request, or the image name' }),
    pull_request: Nullable(
      Type.Object({
        number: Type.Integer(),
        title: Nullable(Type.String()),
        url: Nullable(Type.String({ description: "the pull request's page at the provider" })),
        head_branch: Nullable(Type.String()),
        head_commit: Nullable(Type.String({ description: 'the commit the preview was last deployed at' })),
        author: Nullable(Type.String()),
      }),
    ),
    image_tag: Nullable(Type.String()),
    created_at: DateTime,
    last_activity_at: DateTime,
  },
  { title: 'PreviewEnvironment' },
)

export const PreviewEnvironmentList = Type.Object({ results: Type.Array(PreviewEnvironment) }, { title: 'PreviewEnvironmentResponseList' })

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const

export const EnvironmentDeploymentRule = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    on_demand_preview: Type.Boolean(),
    auto_stop: Type.Boolean(),
    auto_preview: Type.Boolean({ description: "the environment's auto_preview: pull requests make previews (docs/previews.md)" }),
    timezone: Type.String(),
    start_time: DateTime,
    stop_time: DateTime,
    weekdays: Type.Array(Enum(WEEKDAYS, 'WeekdayEnum')),
  },
  { title: 'EnvironmentDeploymentRule' },
)

export const EnvironmentDeploymentRuleEditRequest = Type.Object(
  {
    on_demand_preview: Type.Optional(Type.Boolean({ default: false })),
    auto_preview: Type.Optional(Type.Boolean({ default: false, description: "sets the environment's auto_preview" })),
    auto_stop: Type.Optional(Type.Boolean({ default: false })),
    timezone: Type.String({ minLength: 1, maxLength: 64 }),
    start_time: DateTime,
    stop_time: DateTime,
    weekdays: Type.Array(Enum(WEEKDAYS, 'WeekdayEnum'), { maxItems: 7, uniqueItems: true }),
  },
  { title: 'EnvironmentDeploymentRuleEditRequest' },
)
