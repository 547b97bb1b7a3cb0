import { asContractKind } from '#src/platform/http/enum-words/enum-word-pairs.ts'
import type { ImportResult } from './variable-import.ts'
import type { LinkInput } from './variable-links.ts'
import type { EnvironmentVariable, Secret, VariableImport, VariableImportRequest, VariableResponse, VariableScopeWord } from './variables.schemas.ts'
import { isServiceScope, type LinkedVariable, type ParentScope, type ServiceScope, type VariableRecord } from './variables.types.ts'

// Variables as the reference's responses show them. A secret's value is never among them: reads
// never load it (the repository leaves sealed values out of what it returns).

/** The scopes a variable may be created in, from the reference's enum: the project, the environment and `scopes`; others are refused by the caller. */
export const asParentScope = (scopes: readonly ServiceScope[], given: VariableScopeWord): ParentScope | undefined => {
  // The reference's word for a kind (TERRAFORM) is its alias.
  const scope = asContractKind(given)
  return scope === 'PROJECT' || scope === 'ENVIRONMENT' || isServiceScope(scopes, scope) ? scope : undefined
}

/** What an alias shows as its value: the key of the variable it aliases. */
const shownValue = (variable: VariableRecord): string | null =>
  variable.variableType === 'ALIAS' ? (variable.aliased?.key ?? null) : variable.isSecret ? null : variable.value

function placement(variable: VariableRecord) {
  return {
    id: variable.id,
    created_at: variable.createdAt.toISOString(),
    updated_at: variable.updatedAt.toISOString(),
    scope: variable.scope as VariableScopeWord,
    variable_type: variable.variableType,
    ...(variable.serviceId
      ? { service_id: variable.serviceId, service_name: variable.serviceName ?? '', service_type: variable.serviceKind as 'HELM' }
      : {}),
    owned_by: 'BERTH',
    description: variable.description ?? '',
    enable_interpolation_in_file: variable.enableInterpolationInFile ?? false,
  }
}

/** An aliased or overridden secret as a response names it: without a value. */
const linkedSecret = (variable: LinkedVariable) => ({
  id: variable.id,
  key: variable.key,
  mount_path: variable.mountPath,
  scope: variable.scope as VariableScopeWord,
  variable_type: variable.variableType,
})

/** An aliased or overridden variable as a response names it: its value, null for a secret. */
const linked = (variable: LinkedVariable) => ({ ...linkedSecret(variable), value: variable.isSecret ? null : variable.value })

export function toVariableResponse(variable: VariableRecord): VariableResponse {
  return {
    ...placement(variable),
    key: variable.key,
    value: shownValue(variable),
    mount_path: variable.mountPath,
    ...(variable.overridden ? { overridden_variable: linked(variable.overridden) } : {}),
    ...(variable.aliased ? { aliased_variable: linked(variable.aliased) } : {}),
    is_secret: variable.isSecret,
    secret_manager_access_id: null,
  }
}

export function toEnvironmentVariable(variable: VariableRecord): EnvironmentVariable {
  return {
    ...placement(variable),
    key: variable.key,
    value: shownValue(variable) ?? '',
    mount_path: variable.mountPath,
    ...(variable.overridden ? { overridden_variable: linked(variable.overridden) } : {}),
    ...(variable.aliased ? { aliased_variable: linked(variable.aliased) } : {}),
  }
}

export function toSecret(variable: VariableRecord): Secret {
  return {
    ...placement(variable),
    key: variable.key,
    mount_path: variable.mountPath,
    ...(variable.overridden ? { overridden_secret: linkedSecret(variable.overridden) } : {}),
    ...(variable.aliased ? { aliased_secret: linkedSecret(variable.aliased) } : {}),
  }
}

export const linkInput = (body: {
  description?: string | null | undefined
  enable_interpolation_in_file?: boolean | null | undefined
}): LinkInput => ({
  description: body.description ?? null,
  enableInterpolationInFile: body.enable_interpolation_in_file ?? null,
})

/** An import request as the service takes it (the generic and the per-scope imports share the body). */
export const importInput = (body: VariableImportRequest) => ({
  overwrite: body.overwrite,
  vars: body.vars.map((entry) => ({ name: entry.name, value: entry.value, scope: entry.scope, isSecret: entry.is_secret })),
})

export function toVariableImport(result: ImportResult): VariableImport {
  return {
    total_variables_to_import: result.total,
    successful_imported_variables: result.imported.map((entry) => ({
      name: entry.name,
      ...(entry.value === null ? {} : { value: entry.value }),
      scope: entry.scope as VariableScopeWord,
      is_secret: entry.isSecret,
    })),
  }
}
