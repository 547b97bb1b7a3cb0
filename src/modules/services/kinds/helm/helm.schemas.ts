import { type Static, Type } from 'typebox'
import { ApplicationGitRepository, gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import { serviceResponseHead } from '#src/modules/services/kind-schemas.ts'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// Body schemas use plain objects with optional members instead of oneOf: Ajv's removeAdditional
// would strip members while trying alternatives. "Exactly one of" is checked in helm-request-rules.ts.

export const PORT_PROTOCOLS = ['HTTP', 'GRPC'] as const
export type PortProtocol = (typeof PORT_PROTOCOLS)[number]
const PortProtocol = Type.Unsafe<PortProtocol>({ type: 'string', enum: [...PORT_PROTOCOLS], title: 'HelmPortProtocolEnum' })

const MAX_INT = 2_147_483_647
const _ShortText = (options = {}) => Type.String({ maxLength: 255, ...options })

const KeyValues = Type.Array(Type.Array(Type.String({ maxLength: 100_000 }), { minItems: 2, maxItems: 2, description: 'a [key, value] pair' }), {
  maxItems: 1000,
  description: 'The input is in json array format: [ [$KEY,$VALUE], [...] ]',
})

const GitRepositoryRequest = gitRepositoryRequest('HelmGitRepositoryRequest')

const KubernetesSelector = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 317 }), value: Type.String({ maxLength: 63 }) },
  { additionalProperties: false, title: 'KubernetesSelector' },
)

const Port = Type.Integer({ minimum: 1, maximum: 65535 })

const HelmPortRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
    internal_port: Port,
    external_port: Type.Optional(Port),
    namespace: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 63 }))),
    protocol: Type.Optional(PortProtocol),
    is_default: Type.Optional(Type.Boolean()),
    service_name: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    service_selectors: Type.Optional(Type.Array(KubernetesSelector, { maxItems: 50 })),
  },
  { additionalProperties: false },
)

const ValuesFileRequest = Type.Object(
  {
    git: Type.Optional(
      Nullable(
        Type.Object(
          {
            git_repository: GitRepositoryRequest,
            paths: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
              minItems: 1,
              maxItems: 100,
              description: 'values files in the repository; each starts with /',
            }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    raw: Type.Optional(
      Nullable(
        Type.Object(
          {
            values: Type.Array(
              Type.Object(
                { name: Type.String({ minLength: 1, maxLength: 255 }), content: Type.String({ maxLength: 512 * 1024 }) },
                { additionalProperties: false },
              ),
              { maxItems: 100 },
            ),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
)

export const HelmRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'case insensitive; unique in the environment' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    timeout_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT, default: 600 })),
    auto_preview: Type.Optional(Nullable(Type.Boolean({ description: "absent or null: the environment's auto_preview" }))),
    auto_deploy: Type.Boolean(),
    source: Type.Object(
      {
        git_repository: Type.Optional(GitRepositoryRequest),
        helm_repository: Type.Optional(
          Type.Object(
            {
              repository: Uuid,
              chart_name: Type.String({ minLength: 1, maxLength: 255 }),
              chart_version: Type.String({ minLength: 1, maxLength: 255 }),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false, description: 'exactly one of git_repository and helm_repository' },
    ),
    arguments: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 200, description: 'extra arguments passed to helm verbatim' }),
    allow_cluster_wide_resources: Type.Optional(Type.Boolean({ default: false, description: 'true needs the ADMIN role' })),
    values_override: Type.Object(
      {
        set: Type.Optional(KeyValues),
        set_string: Type.Optional(KeyValues),
        set_json: Type.Optional(KeyValues),
        file: Type.Optional(Nullable(ValuesFileRequest)),
      },
      { additionalProperties: false },
    ),
    ports: Type.Optional(Type.Array(HelmPortRequest, { maxItems: 50 })),
    icon_uri: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    blueprint_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false, title: 'HelmRequest' },
)
export type HelmRequest = Static<typeof HelmRequest>

const HelmPortResponse = Type.Object(
  {
    id: Uuid,
    port_type: Type.String({ description: 'SERVICE_NAME or SERVICE_SELECTORS' }),
    name: Type.String(),
    internal_port: Type.Integer(),
    external_port: Type.Integer(),
    namespace: Type.Optional(Type.String()),
    protocol: PortProtocol,
    is_default: Type.Boolean(),
    service_name: Type.Optional(Type.String()),
    service_selectors: Type.Optional(Type.Array(KubernetesSelector)),
  },
  { title: 'HelmPortResponse' },
)

const KeyValuesResponse = Type.Array(Type.Array(Type.String()))

export const HelmResponse = Type.Object(
  {
    ...serviceResponseHead,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    timeout_sec: Type.Integer(),
    auto_preview: Type.Boolean(),
    auto_deploy: Type.Boolean(),
    ports: Type.Array(HelmPortResponse),
    source: Type.Union([
      Type.Object({ git: Type.Object({ git_repository: ApplicationGitRepository }, { title: 'HelmSourceGitResponse' }) }),
      Type.Object({
        repository: Type.Object(
          {
            chart_name: Type.String(),
            chart_version: Type.String(),
            repository: Type.Object({ id: Uuid, name: Type.String(), url: Nullable(Type.String()) }),
          },
          { title: 'HelmSourceRepositoryResponse' },
        ),
      }),
    ]),
    arguments: Type.Array(Type.String()),
    allow_cluster_wide_resources: Type.Boolean(),
    values_override: Type.Object({
      set: KeyValuesResponse,
      set_string: KeyValuesResponse,
      set_json: KeyValuesResponse,
      file: Nullable(
        Type.Object({
          git: Type.Optional(Type.Object({ git_repository: ApplicationGitRepository, paths: Type.Array(Type.String()) })),
          raw: Type.Optional(Type.Object({ values: Type.Array(Type.Object({ name: Type.String(), content: Type.String() })) })),
        }),
      ),
    }),
    icon_uri: Type.String(),
    service_type: Type.Literal('HELM'),
    blueprint_id: Nullable(Uuid),
  },
  { title: 'HelmResponse' },
)
export type HelmResponse = Static<typeof HelmResponse>

export const HelmDeployRequest = Type.Object(
  {
    chart_version: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'for a chart of a helm repository: the version to deploy' }),
    ),
    git_commit_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'for a chart in a git repository: the commit to deploy' })),
    values_override_git_commit_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'for values files in a git repository: the commit to read them at' }),
    ),
  },
  { title: 'HelmDeployRequest' },
)
export type HelmDeployRequest = Static<typeof HelmDeployRequest>

export const HelmForceEventQuery = Type.Object({
  forceEvent: Type.Optional(
    Enum(['DIFF'], 'HelmForceEvent', 'accepted for compatibility; every executor deploys the chart whether or not its rendered objects changed'),
  ),
})
