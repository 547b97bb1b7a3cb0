import { resolveGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { ServiceKind, ServiceRecord, ServiceReference } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields, gitTokenNamesOf } from '#src/modules/services/service-records.ts'
import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { IacConfig, IacServiceInput, IacServiceRecord, IacVariable } from './iac.types.ts'
import { type IacDeployOverrides, iacOverrideErrors, iacPlan, iacPlanning } from './iac-deployments.ts'

/**
 * A write as the route validated it: the input, its secret variables already sealed, plus the
 * field errors of the request's own rules, reported with those only the database can find.
 */
export interface IacWrite {
  input: IacServiceInput<IacServiceInput['git'], IacVariable | { key: string; secret: true; sealed: null }>
  ruleErrors: FieldError[]
}

const REFERENCE_PATHS = { source: '/terraform_files_source/git_repository/git_token_id' }

/** Seals each secret variable's value; a secret given without a value keeps the stored one (sealed: null until prepare). */
export function sealedVariables(input: IacServiceInput, secrets: SecretBox): IacWrite['input']['tfVars'] {
  return input.tfVars.map(({ key, secret, value }) => {
    if (!secret) return { key, secret: false, value: value ?? '' }
    if (value === undefined) return { key, secret: true, sealed: null }
    return { key, secret: true, sealed: secrets.seal(value).toString('base64') }
  })
}

/** An IAC service as its wire mapping reads it. */
export function toIacRecord(service: ServiceRecord<IacConfig>): IacServiceRecord {
  return { ...coreRecordFields(service), version: service.version, gitTokenNames: gitTokenNamesOf(service.references) }
}

/** The IAC kind of service (reference tags Terraforms, Terraform Main Calls, Terraform Actions…). */
export const iacKind: ServiceKind<IacWrite, IacConfig, IacDeployOverrides> = {
  ...iacPlanning,
  noun: 'terraform',
  referencePaths: REFERENCE_PATHS,

  async prepare({ organizationId, lookups, previous }, { input, ruleErrors }) {
    const errors = [...ruleErrors]
    const git = await resolveGitRepository(lookups, organizationId, input.git, '/terraform_files_source/git_repository', errors)
    const stored = new Map((previous?.configuration.tfVars ?? []).map((variable) => [variable.key, variable]))
    const tfVars: IacVariable[] = input.tfVars.map((variable, index) => {
      if (!variable.secret || variable.sealed !== null) return variable as IacVariable
      const kept = stored.get(variable.key)
      if (kept?.secret) return kept
      errors.push({ path: `/terraform_variables_source/tf_vars/${index}/value`, message: 'is required for a new secret', location: 'body' })
      return { key: variable.key, secret: true, sealed: '' }
    })
    if (errors.length > 0) throw validationFailed(errors)
    const { name, ...rest } = input
    const configuration: IacConfig = { ...rest, git, tfVars }
    const references: ServiceReference[] = git.gitTokenId ? [{ field: 'source', gitTokenId: git.gitTokenId }] : []
    return { name, configuration, references }
  },

  cloneInput({ configuration }, name) {
    return { input: { ...configuration, name }, ruleErrors: [] }
  },

  overrideErrors: iacOverrideErrors,
  plan: iacPlan,

  pushOverrides: ({ autoDeployAction }) => (autoDeployAction === 'PLAN' ? { action: 'PLAN' } : {}),

  /** A push deploys unless its terraform_action is NOOP. */
  followedBranch({ git, autoDeploy, autoDeployAction }) {
    const { provider, owner, name, branch } = git
    return { provider, owner, name, branch, autoDeploy: autoDeploy && autoDeployAction !== 'NOOP' }
  },
}
