import { type Static, Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { recordHeadSchema } from '#src/platform/http/named-resources.ts'
import { GROUP_ASSOCIATED_ITEM_TYPES } from '#src/platform/service-types.ts'

export const ANNOTATIONS_GROUP_SCOPES = [
  'DEPLOYMENTS',
  'STATEFUL_SETS',
  'SERVICES',
  'INGRESS',
  'GATEWAY_API_ROUTES',
  'HPA',
  'PODS',
  'SECRETS',
  'JOBS',
  'CRON_JOBS',
] as const
export type AnnotationsGroupScope = (typeof ANNOTATIONS_GROUP_SCOPES)[number]

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'name of the group' })
// Kubernetes allows 253 + 63 characters in a key; values are free text.
const Key = Type.String({ minLength: 1, maxLength: 317 })
const Value = Type.String({ maxLength: 4096 })

export const Label = Type.Object(
  { key: Key, value: Value, propagate_to_cloud_provider: Type.Boolean() },
  { additionalProperties: false, title: 'Label' },
)
export const Annotation = Type.Object({ key: Key, value: Value }, { additionalProperties: false, title: 'Annotation' })
const Scope = Type.Unsafe<AnnotationsGroupScope>({
  type: 'string',
  enum: [...ANNOTATIONS_GROUP_SCOPES],
  title: 'OrganizationAnnotationsGroupScopeEnum',
})

export const LabelsGroupRequest = Type.Object(
  { name: Name, labels: Type.Array(Label, { maxItems: 100 }) },
  { additionalProperties: false, title: 'OrganizationLabelsGroupCreateRequest' },
)
export type LabelsGroupRequest = Static<typeof LabelsGroupRequest>

export const AnnotationsGroupRequest = Type.Object(
  { name: Name, annotations: Type.Array(Annotation, { maxItems: 100 }), scopes: Type.Array(Scope, { maxItems: ANNOTATIONS_GROUP_SCOPES.length }) },
  { additionalProperties: false, title: 'OrganizationAnnotationsGroupCreateRequest' },
)
export type AnnotationsGroupRequest = Static<typeof AnnotationsGroupRequest>

const base = recordHeadSchema()

export const LabelsGroupResponse = Type.Object(
  { ...base, name: Type.String(), labels: Type.Array(Label) },
  { title: 'OrganizationLabelsGroupResponse' },
)
export type LabelsGroupResponse = Static<typeof LabelsGroupResponse>
export const AnnotationsGroupResponse = Type.Object(
  { ...base, name: Type.String(), annotations: Type.Array(Annotation), scopes: Type.Array(Scope) },
  { title: 'OrganizationAnnotationsGroupResponse' },
)
export type AnnotationsGroupResponse = Static<typeof AnnotationsGroupResponse>

const count = { associated_items_count: Type.Integer({ description: 'the services the group is attached to' }) }
export const LabelsGroupList = ListResponse(
  Type.Object({ ...LabelsGroupResponse.properties, ...count }, { title: 'OrganizationLabelsGroupEnrichedResponse' }),
  'OrganizationLabelsGroupEnrichedResponseList',
)
export const AnnotationsGroupList = ListResponse(
  Type.Object({ ...AnnotationsGroupResponse.properties, ...count }, { title: 'OrganizationAnnotationsGroupEnrichedResponse' }),
  'OrganizationAnnotationsGroupEnrichedResponseList',
)

export type AssociatedItemType = (typeof GROUP_ASSOCIATED_ITEM_TYPES)[number]

export const AssociatedItemsList = (title: string) =>
  Type.Object(
    {
      results: Type.Array(
        Type.Object({
          cluster_id: Type.Optional(Uuid),
          cluster_name: Type.Optional(Type.String()),
          project_id: Type.Optional(Uuid),
          project_name: Type.Optional(Type.String()),
          environment_id: Type.Optional(Uuid),
          environment_name: Type.Optional(Type.String()),
          item_id: Uuid,
          item_name: Type.String(),
          item_type: Type.Unsafe<AssociatedItemType>({ type: 'string', enum: [...GROUP_ASSOCIATED_ITEM_TYPES] }),
        }),
      ),
    },
    { title },
  )

export const LabelsGroupParams = Type.Object({ organizationId: Uuid, labelsGroupId: Uuid })
export const AnnotationsGroupParams = Type.Object({ organizationId: Uuid, annotationsGroupId: Uuid })

/** A service request's `labels_groups` or `annotations_groups`: ids of the organization's groups; absent on an edit keeps the service's. */
export const ServiceGroupIdsRequest = (what: 'labels' | 'annotations') =>
  Type.Optional(
    Type.Union([
      Type.Array(Type.Object({ id: Uuid }, { additionalProperties: false }), {
        maxItems: 50,
        description: `ids of ${what} groups of the organization (400 otherwise); null: none; absent on an edit: unchanged`,
      }),
      Type.Null(),
    ]),
  )
