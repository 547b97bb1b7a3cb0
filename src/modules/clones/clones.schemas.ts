import { type Static, Type } from 'typebox'
import { MODES, type Mode } from '#src/modules/environments/environments.schemas.ts'

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: "the clone's name, case insensitive; unique where it goes" })

export const CloneEnvironmentRequest = Type.Object(
  {
    name: Name,
    cluster_id: Type.Optional(Type.String({ format: 'uuid', description: "a cluster of the organization; absent: the source's cluster" })),
    mode: Type.Optional(
      Type.Unsafe<Mode>({ type: 'string', enum: [...MODES], title: 'EnvironmentModeEnum', description: "absent: the source's mode" }),
    ),
    apply_deployment_rule: Type.Optional(
      Type.Boolean({ default: false, description: 'accepted for compatibility; Berth has no deployment rules to apply' }),
    ),
    project_id: Type.Optional(
      Type.String({ format: 'uuid', description: "a project of the organization to clone into; absent: the source's project" }),
    ),
  },
  { title: 'CloneEnvironmentRequest' },
)
export type CloneEnvironmentRequest = Static<typeof CloneEnvironmentRequest>

export const CloneServiceRequest = Type.Object(
  {
    name: Name,
    environment_id: Type.String({ format: 'uuid', description: "an environment of the organization, the source's own included" }),
  },
  { title: 'CloneServiceRequest' },
)
export type CloneServiceRequest = Static<typeof CloneServiceRequest>
