import { gitRepositoryInput, toGitRepositoryResponse } from '#src/modules/services/git-repositories/git-repositories.ts'
import { coreResponseFields } from '#src/modules/services/service-responses.ts'
import type { TerraformRequest, TerraformResponse } from './iac.schemas.ts'
import type { IacBackend, IacServiceInput, IacServiceRecord } from './iac.types.ts'

/** What an IAC service shows when the request gives no icon. */
export const DEFAULT_IAC_ICON_URI = 'app://berth/terraform'
/** The reference's default `timeout_sec`. */
const DEFAULT_TIMEOUT_SEC = 600

function backendInput(backend: TerraformRequest['backend']): IacBackend {
  if (backend.blueprint) return { blueprint: { type: backend.blueprint.type, config: backend.blueprint.config ?? {} } }
  if (backend.user_provided) return { userProvided: {} }
  return { kubernetes: {} }
}

/** A terraform request that passed its schema and iacRequestErrors, as the service's input. */
export function iacInput(body: TerraformRequest): IacServiceInput {
  const fragment = body.dockerfile_fragment
  return {
    name: body.name.trim(),
    description: body.description === '' ? null : body.description,
    autoDeploy: body.auto_deploy_config.auto_deploy,
    autoDeployAction: body.auto_deploy_config.terraform_action,
    git: gitRepositoryInput(body.terraform_files_source.git_repository!),
    tfVarFilePaths: body.terraform_variables_source.tf_var_file_paths,
    tfVars: body.terraform_variables_source.tf_vars.map((variable) => ({
      key: variable.key ?? '',
      secret: variable.secret ?? false,
      value: variable.value,
    })),
    backend: backendInput(body.backend),
    engine: body.engine,
    engineVersion: body.provider_version.explicit_version,
    readFromTerraformBlock: body.provider_version.read_from_terraform_block ?? false,
    timeoutSec: body.timeout_sec ?? DEFAULT_TIMEOUT_SEC,
    iconUri: body.icon_uri ?? DEFAULT_IAC_ICON_URI,
    jobResources: {
      cpuMilli: body.job_resources.cpu_milli,
      ramMib: body.job_resources.ram_mib,
      gpu: body.job_resources.gpu,
      storageGib: body.job_resources.storage_gib,
    },
    useClusterCredentials: body.use_cluster_credentials ?? false,
    actionExtraArguments: body.action_extra_arguments ?? {},
    dockerfileFragment: !fragment
      ? null
      : fragment.type === 'file'
        ? { type: 'file', path: fragment.path! }
        : { type: 'inline', content: fragment.content! },
    blueprintId: body.blueprint_id ?? null,
  }
}

function toBackendResponse(backend: IacBackend): TerraformResponse['backend'] {
  if ('blueprint' in backend) return { blueprint: backend.blueprint }
  if ('userProvided' in backend) return { user_provided: {} }
  return { kubernetes: {} }
}

/** An IAC service as the reference's `TerraformResponse`; a secret variable's value is never shown. */
export function toIacResponse(record: IacServiceRecord): TerraformResponse {
  return {
    ...coreResponseFields(record),
    timeout_sec: record.timeoutSec,
    auto_deploy: record.autoDeploy,
    auto_deploy_config: { auto_deploy: record.autoDeploy, terraform_action: record.autoDeployAction },
    terraform_files_source: { git: { git_repository: toGitRepositoryResponse(record.git, record.gitTokenNames) } },
    icon_uri: record.iconUri,
    service_type: 'IAC',
    terraform_variables_source: {
      tf_var_file_paths: record.tfVarFilePaths,
      tf_vars: record.tfVars.map((variable) =>
        variable.secret ? { key: variable.key, secret: true } : { key: variable.key, value: variable.value, secret: false },
      ),
    },
    engine: record.engine,
    backend: toBackendResponse(record.backend),
    provider_version: { read_from_terraform_block: record.readFromTerraformBlock, explicit_version: record.engineVersion },
    job_resources: {
      cpu_milli: record.jobResources.cpuMilli,
      ram_mib: record.jobResources.ramMib,
      gpu: record.jobResources.gpu,
      storage_gib: record.jobResources.storageGib,
    },
    use_cluster_credentials: record.useClusterCredentials,
    action_extra_arguments: record.actionExtraArguments,
    dockerfile_fragment: record.dockerfileFragment,
    blueprint_id: record.blueprintId,
  }
}
