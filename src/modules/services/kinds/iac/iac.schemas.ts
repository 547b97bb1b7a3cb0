import { type Static, Type } from 'typebox'
import { ApplicationGitRepository, gitRepositoryRequest } from '#src/modules/services/git-repositories/git-repository.schemas.ts'
import { serviceResponseHead } from '#src/modules/services/kind-schemas.ts'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

// The reference's "terraform" shapes (TerraformRequest, TerraformResponse, TerraformDeployRequest,
// TerraformResourcesResponse…). Body schemas use plain objects with optional members instead of
// oneOf (Ajv's removeAdditional would strip members while trying alternatives): "exactly one of"
// is checked in iac-request-rules.ts.

export const IAC_ENGINES = ['TERRAFORM', 'OPEN_TOFU'] as const
export type IacEngine = (typeof IAC_ENGINES)[number]
const Engine = Enum(IAC_ENGINES, 'TerraformEngineEnum')

export const AUTO_DEPLOY_ACTIONS = ['DEFAULT', 'PLAN', 'NOOP'] as const
export type AutoDeployAction = (typeof AUTO_DEPLOY_ACTIONS)[number]

/** The commands `action_extra_arguments` may name. */
export const IAC_COMMANDS = ['init', 'validate', 'plan', 'apply', 'destroy', 'force-unlock', 'show'] as const

const AutoDeployConfig = Type.Object(
  {
    auto_deploy: Type.Boolean(),
    terraform_action: Enum(AUTO_DEPLOY_ACTIONS, 'TerraformAutoDeployAction', 'DEFAULT: plan and apply; PLAN: plan only; NOOP: nothing'),
  },
  { title: 'TerraformAutoDeployConfig' },
)

const TfVar = Type.Object(
  {
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    value: Type.Optional(Type.String({ maxLength: 100_000 })),
    secret: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'TerraformVarKeyValue', description: 'A Terraform input variable' },
)

const VariablesSourceRequest = Type.Object(
  {
    tf_var_file_paths: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { maxItems: 100 }),
    tf_vars: Type.Array(TfVar, { maxItems: 1000 }),
  },
  { additionalProperties: false, title: 'TerraformVariablesSourceRequest' },
)

const Backend = Type.Object(
  {
    kubernetes: Type.Optional(Type.Object({}, { title: 'TerraformBackendKubernetes' })),
    user_provided: Type.Optional(Type.Object({}, { title: 'TerraformBackendUserProvided' })),
    blueprint: Type.Optional(
      Type.Object(
        {
          type: Type.String({ minLength: 1, maxLength: 64 }),
          config: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }))),
        },
        { additionalProperties: false, title: 'TerraformBackendBlueprint' },
      ),
    ),
  },
  { title: 'TerraformBackend', description: 'exactly one of kubernetes, user_provided and blueprint' },
)

const ProviderVersion = Type.Object(
  {
    read_from_terraform_block: Type.Optional(Type.Boolean()),
    explicit_version: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false, title: 'TerraformProviderVersion' },
)

const JobResources = (title: string) =>
  Type.Object(
    {
      cpu_milli: Type.Integer({ minimum: 10, maximum: 16_000 }),
      ram_mib: Type.Integer({ minimum: 1, maximum: 16_384 }),
      gpu: Type.Integer({ minimum: 0, maximum: 0, default: 0 }),
      storage_gib: Type.Integer({ minimum: 0, maximum: 1024 }),
    },
    { title },
  )

const DockerfileFragment = Type.Object(
  {
    type: Enum(['file', 'inline'] as const, 'DockerfileFragmentType'),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    content: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  { additionalProperties: false, description: 'DockerfileFragmentFile (`path`) or DockerfileFragmentInline (`content`, at most 8 KiB)' },
)

const ExtraArguments = Type.Record(Type.String({ maxLength: 32 }), Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 50 }), {
  description: 'The extra arguments of each command (`{"apply": ["-lock=false"]}`), added after the command',
})

export const TerraformRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.String({ maxLength: 4096 }),
    auto_deploy_config: AutoDeployConfig,
    terraform_files_source: Type.Object(
      { git_repository: Type.Optional(gitRepositoryRequest('TerraformGitRepositoryRequest')) },
      { additionalProperties: false },
    ),
    terraform_variables_source: VariablesSourceRequest,
    backend: Backend,
    engine: Engine,
    provider_version: ProviderVersion,
    timeout_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
    icon_uri: Type.Optional(Type.String({ maxLength: 2048 })),
    job_resources: JobResources('TerraformRequestJobResources'),
    use_cluster_credentials: Type.Optional(Type.Boolean()),
    action_extra_arguments: Type.Optional(ExtraArguments),
    dockerfile_fragment: Type.Optional(Nullable(DockerfileFragment)),
    blueprint_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false, title: 'TerraformRequest' },
)
export type TerraformRequest = Static<typeof TerraformRequest>

export const TerraformResponse = Type.Object(
  {
    ...serviceResponseHead,
    name: Type.String(),
    description: Type.Optional(Type.String()),
    timeout_sec: Type.Integer({ minimum: 0 }),
    auto_deploy: Type.Boolean(),
    auto_deploy_config: AutoDeployConfig,
    terraform_files_source: Type.Object({ git: Type.Object({ git_repository: ApplicationGitRepository }) }, { title: 'TerraformFilesSource' }),
    icon_uri: Type.String(),
    service_type: Type.Literal('IAC', { description: 'ServiceTypeEnum: IAC, the word of the contract for the TERRAFORM of the reference' }),
    terraform_variables_source: Type.Object(
      {
        tf_var_file_paths: Type.Array(Type.String()),
        tf_vars: Type.Array(
          Type.Object(
            { key: Type.String(), value: Type.Optional(Type.String({ description: 'absent for a secret' })), secret: Type.Boolean() },
            { title: 'TerraformVarKeyValue' },
          ),
        ),
      },
      { title: 'TerraformVariablesSourceResponse' },
    ),
    engine: Engine,
    backend: Type.Object(
      {
        kubernetes: Type.Optional(Type.Object({})),
        user_provided: Type.Optional(Type.Object({})),
        blueprint: Type.Optional(Type.Object({ type: Type.String(), config: Type.Optional(Type.Record(Type.String(), Type.String())) })),
      },
      { title: 'TerraformBackend' },
    ),
    provider_version: Type.Object(
      { read_from_terraform_block: Type.Boolean(), explicit_version: Type.String() },
      { title: 'TerraformProviderVersion' },
    ),
    job_resources: JobResources('TerraformJobResourcesResponse'),
    use_cluster_credentials: Type.Boolean(),
    action_extra_arguments: Type.Record(Type.String(), Type.Array(Type.String())),
    dockerfile_fragment: Nullable(Type.Object({ type: Type.String(), path: Type.Optional(Type.String()), content: Type.Optional(Type.String()) })),
    blueprint_id: Nullable(Uuid),
  },
  { title: 'TerraformResponse', description: 'A Terraform service' },
)
export type TerraformResponse = Static<typeof TerraformResponse>

export const IAC_DEPLOY_ACTIONS = ['PLAN', 'FORCE_UNLOCK', 'MIGRATE_STATE'] as const
export type IacDeployAction = (typeof IAC_DEPLOY_ACTIONS)[number]

export const TerraformDeployRequest = Type.Object(
  {
    id: Type.Optional(Nullable(Uuid)),
    git_commit_id: Type.Optional(Type.String({ maxLength: 255, description: 'the commit to run; absent or empty: the head of the branch' })),
    action: Type.Optional(
      Nullable(
        Type.Unsafe<IacDeployAction>({
          type: 'string',
          enum: [...IAC_DEPLOY_ACTIONS],
          description: 'PLAN: plan only; FORCE_UNLOCK: release the state lock; MIGRATE_STATE: init -migrate-state; absent: plan and apply',
        }),
      ),
    ),
  },
  { title: 'TerraformDeployRequest' },
)
export type TerraformDeployRequest = Static<typeof TerraformDeployRequest>

export const DeleteTerraformQuery = Type.Object({
  resources_only: Type.Optional(
    Type.Boolean({ default: false, description: 'true is refused: uninstallTerraform deletes the resources and keeps the configuration' }),
  ),
  skipReconcile: Type.Optional(Type.Boolean({ default: false, description: 'accepted for compatibility; nothing to reconcile yet' })),
  force_terraform_action: Type.Optional(
    Enum(['SKIP_DESTROY'] as const, 'DeleteTerraformAction', 'SKIP_DESTROY: delete the service without running destroy, leaving the resources'),
  ),
})

export const DeleteTerraformActionQuery = Type.Object({
  force_terraform_action: Type.Optional(
    Enum(['SKIP_DESTROY'] as const, 'DeleteTerraformAction', 'SKIP_DESTROY: forget what was applied without running destroy'),
  ),
})

export const TerraformResourceResponse = Type.Object(
  {
    id: Uuid,
    resource_type: Type.String(),
    name: Type.String(),
    address: Type.String(),
    provider: Type.String(),
    mode: Enum(['managed', 'data'] as const, 'TerraformResourceMode'),
    attributes: Type.Object({}, { additionalProperties: true }),
    extracted_at: DateTime,
  },
  { title: 'TerraformResourceResponse' },
)

export const TerraformResourcesResponse = Type.Object(
  { results: Type.Array(TerraformResourceResponse) },
  { title: 'TerraformResourcesResponse', description: 'The resources of the last successful apply' },
)

export const TerraformVersionResponseList = Type.Object(
  { results: Type.Array(Type.Object({ engine: Engine, version: Type.String() }, { title: 'TerraformVersionResponse' })) },
  { title: 'TerraformVersionResponseList' },
)
