import { bodyError } from '#src/modules/services/field-errors.ts'
import { checkGitRepository } from '#src/modules/services/git-repositories/git-repositories.ts'
import type { FieldError } from '#src/platform/http/errors.ts'
import { IAC_COMMANDS, type TerraformRequest } from './iac.schemas.ts'

// The rules of a terraform request that its JSON schema cannot say. Each broken rule names the
// request's field by JSON pointer, so that one answer lists every mistake.

/** A version the engine's image can be named by: digits, dots, a pre-release suffix. */
const VERSION = /^[0-9]+(\.[0-9]+){0,2}(-[0-9A-Za-z.]+)?$/
/** A relative path inside the repository, never outside it. */
const outside = (path: string) => path.split('/').includes('..')

/** Every rule the request breaks beyond its schema; empty when it is valid. */
export function iacRequestErrors(body: TerraformRequest): FieldError[] {
  const errors: FieldError[] = []
  const repository = body.terraform_files_source.git_repository
  if (!repository) errors.push(bodyError('/terraform_files_source', 'must give git_repository'))
  else checkGitRepository(repository, '/terraform_files_source/git_repository', errors)
  const backends = ['kubernetes', 'user_provided', 'blueprint'].filter((key) => body.backend[key as keyof typeof body.backend] != null)
  if (backends.length !== 1) errors.push(bodyError('/backend', 'must name exactly one of kubernetes, user_provided and blueprint'))
  if (!VERSION.test(body.provider_version.explicit_version)) {
    errors.push(bodyError('/provider_version/explicit_version', 'must be a version such as 1.9.0'))
  }
  body.terraform_variables_source.tf_var_file_paths.forEach((path, index) => {
    if (outside(path)) errors.push(bodyError(`/terraform_variables_source/tf_var_file_paths/${index}`, 'must not contain ..'))
  })
  const keys = new Set<string>()
  body.terraform_variables_source.tf_vars.forEach((variable, index) => {
    const at = `/terraform_variables_source/tf_vars/${index}`
    if (!variable.key) errors.push(bodyError(`${at}/key`, 'is required'))
    else if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(variable.key)) errors.push(bodyError(`${at}/key`, 'must be a Terraform variable name'))
    else if (keys.has(variable.key)) errors.push(bodyError(`${at}/key`, 'is given twice'))
    else keys.add(variable.key)
    if (!variable.secret && variable.value === undefined) errors.push(bodyError(`${at}/value`, 'is required unless secret'))
  })
  for (const command of Object.keys(body.action_extra_arguments ?? {})) {
    if (!(IAC_COMMANDS as readonly string[]).includes(command)) {
      errors.push(bodyError(`/action_extra_arguments/${command}`, `names no command: one of ${IAC_COMMANDS.join(', ')}`))
    }
  }
  const fragment = body.dockerfile_fragment
  if (fragment?.type === 'file' && (!fragment.path || outside(fragment.path))) {
    errors.push(bodyError('/dockerfile_fragment/path', 'a file fragment needs a path in the repository, without ..'))
  }
  if (fragment?.type === 'inline' && fragment.content === undefined)
    errors.push(bodyError('/dockerfile_fragment/content', 'an inline fragment needs content'))
  return errors
}
