import { type Static, type TSchema, Type } from 'typebox'
import { AnnotationsGroupResponse, LabelsGroupResponse } from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { DateTime, Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { SERVICE_LIST_HAS_MORE } from './service-lists.ts'

// The wire shapes every kind's routes share, named after the kind.

/** The path parameter of one service of a kind: `{ helmId }`. */
export const kindParams = <P extends string>(param: P) => Type.Object({ [param]: Uuid } as Record<P, typeof Uuid>)

/** The query of a service's delete. */
export const DeleteServiceQuery = Type.Object({
  skipReconcile: Type.Optional(Type.Boolean({ default: false, description: 'accepted for compatibility; nothing to reconcile yet' })),
})

/** A page of an environment's services of a kind: `HelmResponseList`. */
export const kindResponseList = (response: TSchema, name: string) => ListResponse(response, `${name}ResponseList`, SERVICE_LIST_HAS_MORE)

/** What every kind's response opens with: the service's id, times and environment. */
export const serviceResponseHead = { id: Uuid, created_at: DateTime, updated_at: DateTime, environment: Type.Object({ id: Uuid }) }

/** What a kind's response closes with: its groups, its icon and its type. */
export const serviceResponseTail = <T extends string>(serviceType: T) => ({
  annotations_groups: Type.Array(AnnotationsGroupResponse),
  labels_groups: Type.Array(LabelsGroupResponse),
  icon_uri: Type.String(),
  service_type: Type.Literal(serviceType),
})

/** How a port of an application or a container speaks. */
export const PortProtocol = Type.Unsafe<'HTTP' | 'GRPC' | 'TCP' | 'UDP'>({
  type: 'string',
  enum: ['HTTP', 'GRPC', 'TCP', 'UDP'],
  title: 'PortProtocolEnum',
})
export type PortProtocol = Static<typeof PortProtocol>

/** A port of an application or a container, as responses give it. */
export const ServicePortResponse = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    internal_port: Type.Integer(),
    external_port: Type.Optional(Type.Integer()),
    publicly_accessible: Type.Boolean(),
    is_default: Type.Boolean(),
    protocol: PortProtocol,
    public_path: Type.Optional(Type.String()),
    public_path_rewrite: Type.Optional(Type.String()),
  },
  { title: 'ServicePort' },
)

/** The reference's `LinkResponseList`: a service's links (service-links.ts), `serviceType` saying which kinds answer it. */
export const linkResponseList = (serviceType: TSchema) =>
  Type.Object(
    {
      results: Type.Array(
        Type.Object(
          {
            service_id: Uuid,
            service_type: serviceType,
            url: Type.String(),
            internal_port: Type.Integer(),
            external_port: Type.Integer(),
            is_qovery_domain: Type.Boolean({ description: 'true: a domain Berth derives, not a custom domain' }),
            is_default: Type.Boolean(),
          },
          { title: 'Link' },
        ),
      ),
    },
    { title: 'LinkResponseList' },
  )
