import { SETTING_GROUPS as g } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { BOTH_LIMITS, CONFIG_SIZE_LIMIT, capitalized, ifMatchEdit } from '#src/modules/services/kind-docs.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { iacDocker } from './iac.docker.ts'
import { type IacWrite, iacKind, sealedVariables, toIacRecord } from './iac.kind.ts'
import { iacKubernetes } from './iac.kubernetes.ts'
import { iacBeforeRoutes, iacMemberRoutes } from './iac.routes.ts'
import {
  DeleteTerraformActionQuery,
  DeleteTerraformQuery,
  type TerraformDeployRequest as DeployBody,
  TerraformDeployRequest,
  TerraformRequest,
  TerraformResponse,
} from './iac.schemas.ts'
import type { IacConfig, IacServiceRecord } from './iac.types.ts'
import { iacInput, toIacResponse } from './iac.wire.ts'
import type { IacDeployOverrides } from './iac-deployments.ts'
import { iacRequestErrors } from './iac-request-rules.ts'

/** What a terraform deploy request (alone, or in a bulk deploy's `terraforms`) asks for beyond the configuration. */
export const iacDeployOverrides = (body: DeployBody | undefined): IacDeployOverrides => ({
  // An empty commit names nothing (the Terraform provider may send one).
  gitCommitId: body?.git_commit_id || undefined,
  action: body?.action ?? undefined,
})

/** The validated body as the service's input; a request that names no repository leaves nothing to build: a 400 at once. */
function iacWrite(body: TerraformRequest, secrets: SecretBox): IacWrite {
  const ruleErrors = iacRequestErrors(body)
  if (!body.terraform_files_source.git_repository) throw validationFailed(ruleErrors)
  const input = iacInput(body)
  return { input: { ...input, tfVars: sealedVariables(input, secrets) }, ruleErrors }
}

/** IAC services (the reference's "terraform"): a Terraform or OpenTofu configuration in git, planned and applied as a job. */
export const iacDescriptor = defineKind<IacServiceRecord, IacWrite>({
  kind: iacKind,
  names: {
    name: 'Terraform',
    plural: 'Terraforms',
    aNoun: 'a terraform',
    etagNoun: 'the terraform service',
    list: 'listTerraforms',
    listSummary: 'List terraforms',
    editSummary: 'Edit Terraform',
    deleteSummary: 'Delete Terraform',
  },
  deploy: {
    body: TerraformDeployRequest,
    description:
      '`git_commit_id` names the commit to run (absent: the head of the branch); `action` PLAN stops after the plan, FORCE_UNLOCK releases the ' +
      "state's lock, MIGRATE_STATE runs init -migrate-state; absent: init, plan and apply (docs/iac.md).",
    overrides: (body) => iacDeployOverrides(body as DeployBody | undefined),
  },
  uninstallQuery: DeleteTerraformActionQuery,
  deleteQuery: DeleteTerraformQuery,
  queryOverrides: (query) => {
    const { force_terraform_action: action, resources_only: resourcesOnly } = (query ?? {}) as {
      force_terraform_action?: string
      resources_only?: boolean
    }
    if (resourcesOnly) {
      throw validationFailed([
        {
          path: '/resources_only',
          message: 'is not supported: uninstallTerraform deletes the resources and keeps the configuration',
          location: 'query',
        },
      ])
    }
    return action === 'SKIP_DESTROY' ? { skipDestroy: true } : {}
  },
  bulk: { deploy: { rank: 6, fields: ['git_commit_id'] }, idsRank: 6, idsDescription: 'terraform services' },
  schemas: { request: TerraformRequest, response: TerraformResponse },
  descriptions: {
    create: `Needs the WRITE role. A secret variable's value is sealed and never shown again. Berth limits: ${BOTH_LIMITS}`,
    edit:
      'A full replacement. Needs the WRITE role. A secret variable given without a value keeps the one stored. ' +
      `${ifMatchEdit('the service')} ${capitalized(CONFIG_SIZE_LIMIT)}.`,
  },
  createWrite: (body, { secrets }) => iacWrite(body as TerraformRequest, secrets),
  toRecord: (service) => toIacRecord(service as ServiceRecord<IacConfig>),
  toResponse: toIacResponse,
  features: {
    documentOrder: 5,
    variables: true,
    advancedSettings: {
      get: 'getTerraformAdvancedSettings',
      edit: 'editTerraformAdvancedSettings',
      title: 'TerraformAdvancedSettings',
      // The reference's TerraformAdvancedSettings keys that Berth's groups have.
      settings: {
        'build.timeout_max_sec': g.build['build.timeout_max_sec']!,
        'build.cpu_max_in_milli': g.build['build.cpu_max_in_milli']!,
        'build.ram_max_in_gib': g.build['build.ram_max_in_gib']!,
        'build.skip_git_submodules': g.build['build.skip_git_submodules']!,
        ...g.placement,
        'security.service_account_name': g.security['security.service_account_name']!,
        'security.read_only_root_filesystem': g.security['security.read_only_root_filesystem']!,
      },
    },
    restrictions: true,
  },
  ownRoutes: { before: iacBeforeRoutes, after: iacMemberRoutes },
  executors: { docker: iacDocker, kubernetes: iacKubernetes },
})
