import { type Static, Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { NamedResource, RequestName } from '#src/platform/http/named-resources.ts'

/** The modes a client may choose; PREVIEW is the platform's own, for cloned preview environments. */
export const CREATE_MODES = ['DEVELOPMENT', 'PRODUCTION', 'STAGING'] as const
export const MODES = ['DEVELOPMENT', 'PREVIEW', 'PRODUCTION', 'STAGING'] as const
export type CreateMode = (typeof CREATE_MODES)[number]
export type Mode = (typeof MODES)[number]

const createMode = (options: { default?: CreateMode } = {}) =>
  Type.Unsafe<CreateMode>({ type: 'string', enum: [...CREATE_MODES], title: 'CreateEnvironmentModeEnum', ...options })
const Mode = Type.Unsafe<Mode>({ type: 'string', enum: [...MODES], title: 'EnvironmentModeEnum' })
const Name = RequestName('name is case insensitive; unique in the project')
const autoPreview = (options: { default?: boolean } = {}) =>
  Type.Boolean({ description: 'Berth extension: the auto_preview that helm services created in the environment take by default', ...options })

export const CreateEnvironmentRequest = Type.Object(
  {
    name: Name,
    cluster: Type.Optional(Type.String({ format: 'uuid', description: "a cluster of the organization; absent: the organization's default cluster" })),
    mode: Type.Optional(createMode({ default: 'DEVELOPMENT' })),
    auto_preview: Type.Optional(autoPreview({ default: false })),
  },
  { additionalProperties: false, title: 'CreateEnvironmentRequest' },
)
export type CreateEnvironmentRequest = Static<typeof CreateEnvironmentRequest>

export const EnvironmentEditRequest = Type.Object(
  { name: Type.Optional(Name), mode: Type.Optional(createMode()), auto_preview: Type.Optional(autoPreview()) },
  { additionalProperties: false, title: 'EnvironmentEditRequest' },
)
export type EnvironmentEditRequest = Static<typeof EnvironmentEditRequest>

export const Environment = NamedResource('Environment', {
  organization: Type.Object({ id: Uuid }),
  project: Type.Object({ id: Uuid }),
  cloud_provider: Type.Object({ provider: Type.String(), cluster: Type.String() }),
  mode: Mode,
  cluster_id: Uuid,
  cluster_name: Type.String(),
  expires_at: Nullable(DateTime),
  auto_preview: autoPreview(),
})
export type Environment = Static<typeof Environment>

export const EnvironmentResponseList = ListResponse(Environment, 'EnvironmentResponseList')

export const EnvironmentParams = Type.Object({ environmentId: Uuid })

export const DeleteEnvironmentQuery = Type.Object({
  skipReconcile: Type.Optional(Type.Boolean({ default: false, description: 'accepted for compatibility; Berth has nothing to reconcile' })),
})
