import { type Static, type TProperties, type TSchema, Type } from 'typebox'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { recordHeadSchema } from '#src/platform/http/named-resources.ts'
import { LINKED_SERVICE_TYPES, SERVICE_TYPES_FOR_VARIABLES, VARIABLE_SCOPES } from '#src/platform/service-types.ts'
import { KEY_MAX_LENGTH, MOUNT_PATH_MAX_LENGTH, VALUE_MAX_BYTES } from './variable-rules.ts'

// The reference's shapes of variables and secrets: the generic API's (VariableRequest,
// VariableResponse…) and the per-scope APIs' (EnvironmentVariable, Secret…).

export type VariableScopeWord = (typeof VARIABLE_SCOPES)[number]
export const VariableScopeEnum = Enum(VARIABLE_SCOPES, 'APIVariableScopeEnum')
const VariableTypeEnum = Enum(['VALUE', 'ALIAS', 'OVERRIDE', 'BUILT_IN', 'FILE', 'EXTERNAL_SECRET', 'FILE_EXTERNAL_SECRET'], 'APIVariableTypeEnum')
const LinkedServiceTypeEnum = Enum(LINKED_SERVICE_TYPES, 'LinkedServiceTypeEnum')
const ServiceTypeForVariableEnum = Enum(SERVICE_TYPES_FOR_VARIABLES, 'ServiceTypeForVariableEnum')

// Lengths are checked by the service, which names the rule; the schema only keeps absurd input out.
const Key = Type.String({
  maxLength: KEY_MAX_LENGTH * 4,
  description: `case-sensitive; letters, digits and _, not starting with a digit, QOVERY_ or __; at most ${KEY_MAX_LENGTH} characters`,
})
const Value = Type.String({ maxLength: VALUE_MAX_BYTES, description: `at most ${VALUE_MAX_BYTES} bytes` })
const MountPath = Type.String({
  maxLength: MOUNT_PATH_MAX_LENGTH,
  description: 'makes the variable a file: the absolute path its value is delivered at',
})
const Description = Type.String({ maxLength: 255, description: 'optional variable description (255 characters maximum)' })
const Interpolation = Type.Boolean({ description: 'whether variables referenced in a file variable are replaced (kept, not used by Berth)' })
const SecretManagerAccessId = Nullable(Uuid)

/** What a request may say of a variable beside its key and value: its description and whether a file interpolates. */
const requestNotes = {
  description: Type.Optional(Nullable(Description)),
  enable_interpolation_in_file: Type.Optional(Nullable(Interpolation)),
}

const Base = recordHeadSchema()

/** The secret manager field the generic create and edit requests end with. */
const secretManager = { secret_manager_access_id: Type.Optional(SecretManagerAccessId) }

/** A generic API request: its own `fields`, the notes, then `last`. */
const variableRequest = <Fields extends TProperties, Last extends TProperties>(title: string, fields: Fields, last: Last) =>
  Type.Object({ ...fields, ...requestNotes, ...last }, { title })

// --- generic API (tag Variable Main Calls) ---------------------------------------------------

export const VariableRequest = variableRequest(
  'VariableRequest',
  {
    key: Key,
    value: Value,
    mount_path: Type.Optional(Nullable(MountPath)),
    is_secret: Type.Boolean({ description: 'a secret is sealed at rest and its value never returned' }),
    variable_scope: VariableScopeEnum,
    variable_parent_id: Uuid,
  },
  secretManager,
)
export type VariableRequest = Static<typeof VariableRequest>

export const VariableEditRequest = variableRequest('VariableEditRequest', { key: Key, value: Type.Optional(Nullable(Value)) }, secretManager)
export type VariableEditRequest = Static<typeof VariableEditRequest>

export const VariableAliasRequest = variableRequest('VariableAliasRequest', { key: Key, alias_scope: VariableScopeEnum, alias_parent_id: Uuid }, {})
export type VariableAliasRequest = Static<typeof VariableAliasRequest>

export const VariableOverrideRequest = variableRequest(
  'VariableOverrideRequest',
  { value: Value, override_scope: VariableScopeEnum, override_parent_id: Uuid },
  {},
)
export type VariableOverrideRequest = Static<typeof VariableOverrideRequest>

const linkedFields = {
  id: Uuid,
  key: Type.String(),
  mount_path: Nullable(Type.String()),
  scope: VariableScopeEnum,
  variable_type: VariableTypeEnum,
}

/** An aliased or overridden variable as a response names it. */
const LinkedVariable = (title: string) =>
  Type.Object({ ...linkedFields, value: Nullable(Type.String({ description: 'null for a secret' })) }, { title })

/** An aliased or overridden secret as a response names it: without a value. */
const LinkedSecret = (title: string) => Type.Object(linkedFields, { title })

/** What every variable response says of where it lives. */
const Placement = {
  scope: VariableScopeEnum,
  variable_type: VariableTypeEnum,
  service_id: Type.Optional(Uuid),
  service_name: Type.Optional(Type.String()),
  service_type: Type.Optional(LinkedServiceTypeEnum),
  owned_by: Type.String({ description: 'who keeps the variable: always BERTH (no external secret managers)' }),
  description: Type.String(),
  enable_interpolation_in_file: Type.Boolean(),
}

export const VariableResponse = Type.Object(
  {
    ...Base,
    key: Type.String(),
    value: Nullable(Type.String({ description: "null for a secret; an alias's value is the key of the variable it aliases" })),
    mount_path: Nullable(Type.String()),
    overridden_variable: Type.Optional(LinkedVariable('VariableOverride')),
    aliased_variable: Type.Optional(LinkedVariable('VariableAlias')),
    is_secret: Type.Boolean(),
    secret_manager_access_id: Nullable(Uuid),
    ...Placement,
  },
  { title: 'VariableResponse' },
)
export type VariableResponse = Static<typeof VariableResponse>

export const VariableResponseList = Type.Object({ results: Type.Array(VariableResponse) }, { title: 'VariableResponseList' })

export const VariableParams = Type.Object({ variableId: Uuid })

export const ListVariablesQuery = Type.Object({
  parent_id: Uuid,
  scope: VariableScopeEnum,
  is_secret: Type.Optional(Type.Boolean({ description: 'only secrets (true) or only variables (false)' })),
})

export const VariableImportRequest = Type.Object(
  {
    overwrite: Type.Boolean({ default: false, description: 'replace the value of a plain variable of the same key and secrecy' }),
    vars: Type.Array(
      Type.Object({
        name: Key,
        value: Value,
        scope: VariableScopeEnum,
        is_secret: Type.Boolean(),
      }),
      { maxItems: 1000 },
    ),
  },
  { title: 'VariableImportRequest' },
)
export type VariableImportRequest = Static<typeof VariableImportRequest>

export const VariableImport = Type.Object(
  {
    total_variables_to_import: Type.Number(),
    successful_imported_variables: Type.Array(
      Type.Object({
        name: Type.String(),
        value: Type.Optional(Type.String({ description: 'absent for a secret' })),
        scope: VariableScopeEnum,
        is_secret: Type.Boolean(),
      }),
    ),
  },
  { title: 'VariableImport' },
)
export type VariableImport = Static<typeof VariableImport>

export const ImportQuery = Type.Object({ service_id: Uuid, service_type: ServiceTypeForVariableEnum })

// --- per-scope APIs (Project Environment Variable, Application Secret…) -----------------------

/** The fields of the per-scope create and edit requests; a secret's edit has no mount path. */
const scopedFields = {
  key: Key,
  value: Type.Optional(Value),
  mount_path: Type.Optional(Nullable(MountPath)),
  ...requestNotes,
}

export const EnvironmentVariableRequest = Type.Object(scopedFields, { title: 'EnvironmentVariableRequest' })
export const EnvironmentVariableEditRequest = Type.Object(scopedFields, { title: 'EnvironmentVariableEditRequest' })
export const SecretRequest = Type.Object(scopedFields, { title: 'SecretRequest' })
const { mount_path: _, ...secretEditFields } = scopedFields
export const SecretEditRequest = Type.Object(secretEditFields, { title: 'SecretEditRequest' })

/** The per-scope alias request (reference `Key`, EnvironmentVariableAliasRequest). */
export const AliasRequest = Type.Object({ key: Key, ...requestNotes }, { title: 'EnvironmentVariableAliasRequest' })
export type AliasRequest = Static<typeof AliasRequest>

/** The per-scope override request (reference `Value`, EnvironmentVariableOverrideRequest). */
export const OverrideRequest = Type.Object(
  {
    value: Type.Optional(Value),
    ...requestNotes,
  },
  { title: 'EnvironmentVariableOverrideRequest' },
)
export type OverrideRequest = Static<typeof OverrideRequest>

export const EnvironmentVariable = Type.Object(
  {
    ...Base,
    key: Type.String(),
    value: Type.String({ description: "an alias's value is the key of the variable it aliases" }),
    mount_path: Nullable(Type.String()),
    overridden_variable: Type.Optional(LinkedVariable('EnvironmentVariableOverride')),
    aliased_variable: Type.Optional(LinkedVariable('EnvironmentVariableAlias')),
    ...Placement,
  },
  { title: 'EnvironmentVariable' },
)
export type EnvironmentVariable = Static<typeof EnvironmentVariable>

export const Secret = Type.Object(
  {
    ...Base,
    key: Type.String(),
    mount_path: Nullable(Type.String({ description: 'Berth extension: where a secret file is delivered' })),
    overridden_secret: Type.Optional(LinkedSecret('SecretOverride')),
    aliased_secret: Type.Optional(LinkedSecret('SecretAlias')),
    ...Placement,
  },
  { title: 'Secret' },
)
export type Secret = Static<typeof Secret>

export const listOf = <T extends TSchema>(item: T, title: string) => Type.Object({ results: Type.Array(item) }, { title })
