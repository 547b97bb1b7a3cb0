import type { GroupKind } from '#src/modules/organization-groups/organization-groups.repository.ts'
import type { AnnotationsGroupResponse, LabelsGroupResponse } from '#src/modules/organization-groups/organization-groups.schemas.ts'
import { toAnnotationsGroupResponse, toLabelsGroupResponse } from '#src/modules/organization-groups/organization-groups.wire.ts'
import { AppError, type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import type { AnyServiceKind, PreparedService, ResolvedReference, ServiceLookups, ServiceReference } from './service-kinds.ts'

// Labels and annotations groups attached to services (docs/labels-and-annotations-groups.md, "Labels and annotations groups"),
// once for every kind: a kind's write carries the request's ids as `groups`, the core checks that
// they are groups of the service's organization and keeps each as a reference (field
// `labels_groups/000`, …, in the request's order), and the kinds' responses render them from the
// service's references.

/** The group ids a write's request gave; an absent member (undefined) keeps the service's groups of that kind on an edit. */
export interface ServiceGroupIds {
  labels?: string[] | null | undefined
  annotations?: string[] | null | undefined
}

/** The groups of a service in the reference's response shapes. */
export interface AttachedGroups {
  labels_groups: LabelsGroupResponse[]
  annotations_groups: AnnotationsGroupResponse[]
}

const MEMBERS = [
  { kind: 'LABELS', member: 'labels', field: 'labels_groups' },
  { kind: 'ANNOTATIONS', member: 'annotations', field: 'annotations_groups' },
] as const satisfies readonly { kind: GroupKind; member: keyof ServiceGroupIds; field: string }[]

/** The group ids of a kind's write (`{ …, groups }`), if it carries any. */
export function groupIdsOf(write: unknown): ServiceGroupIds | undefined {
  if (typeof write !== 'object' || write === null || !('groups' in write)) return undefined
  return write.groups as ServiceGroupIds | undefined
}

/** The request's member for group ids, as a write's `groups` carries them. */
export const groupIdsOfBody = (body: {
  labels_groups?: { id: string }[] | null | undefined
  annotations_groups?: { id: string }[] | null | undefined
}): ServiceGroupIds => ({
  labels: body.labels_groups === undefined ? undefined : (body.labels_groups ?? []).map(({ id }) => id),
  annotations: body.annotations_groups === undefined ? undefined : (body.annotations_groups ?? []).map(({ id }) => id),
})

/**
 * The references a write makes to groups: those it names, checked to be groups of the organization
 * (400 at `/labels_groups/<i>/id` otherwise), and for a member it leaves out, the ones `previous` holds.
 */
export async function groupReferences(
  lookups: ServiceLookups,
  organizationId: string,
  ids: ServiceGroupIds | undefined,
  previous: ResolvedReference[] = [],
): Promise<ServiceReference[]> {
  const references: ServiceReference[] = []
  const errors: FieldError[] = []
  for (const { kind, member, field } of MEMBERS) {
    const given = ids?.[member]
    if (given === undefined) {
      for (const reference of previous) {
        if (reference.organizationGroupId && reference.field.startsWith(`${field}/`)) {
          references.push({ field: reference.field, organizationGroupId: reference.organizationGroupId })
        }
      }
      continue
    }
    const wanted = given ?? []
    const found = new Set((await lookups.findGroups(organizationId, kind, [...new Set(wanted)])).map((group) => group.id))
    const kept = new Set<string>()
    wanted.forEach((id, index) => {
      if (!found.has(id))
        errors.push({
          path: `/${field}/${index}/id`,
          message: `is not a ${field.replace('_groups', '')} group of this organization`,
          location: 'body',
        })
      else if (!kept.has(id)) {
        references.push({ field: `${field}/${String(kept.size).padStart(3, '0')}`, organizationGroupId: id })
        kept.add(id)
      }
    })
  }
  if (errors.length > 0) throw validationFailed(errors)
  return references
}

/** The groups a service's references name, each in its response shape, in the order they were given. */
export function attachedGroups(references: ResolvedReference[]): AttachedGroups {
  const groups: AttachedGroups = { labels_groups: [], annotations_groups: [] }
  for (const reference of references) {
    const { group } = reference
    if (!reference.organizationGroupId || !group) continue
    const row = {
      id: reference.organizationGroupId,
      name: reference.name,
      entries: group.entries,
      scopes: group.scopes,
      createdAt: new Date(group.created_at),
      updatedAt: group.updated_at ? new Date(group.updated_at) : null,
    }
    if (group.kind === 'LABELS') groups.labels_groups.push(toLabelsGroupResponse(row))
    else groups.annotations_groups.push(toAnnotationsGroupResponse(row))
  }
  return groups
}

/**
 * The labels a service's labels groups give the objects an executor makes for it: every entry of
 * every group, in the order the groups were given, a later group's key over an earlier one's.
 */
export function groupLabels(references: ResolvedReference[]): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const reference of references) {
    if (!reference.organizationGroupId || reference.group?.kind !== 'LABELS') continue
    for (const entry of reference.group.entries as { key: string; value: string }[]) labels[entry.key] = entry.value
  }
  return labels
}

/**
 * The kind's prepared write with the references to the labels and annotations groups it attaches
 * (this file). The groups are checked alongside the kind's rules, so that one answer
 * lists every mistake of the request.
 */
export async function prepareWithGroups(
  kind: AnyServiceKind,
  context: Parameters<AnyServiceKind['prepare']>[0],
  input: unknown,
  ids: ServiceGroupIds | undefined,
  previous?: ResolvedReference[],
): Promise<PreparedService<unknown>> {
  const groups = groupReferences(context.lookups, context.organizationId, ids, previous).then(
    (references) => ({ references, errors: [] as FieldError[] }),
    (error: unknown) => {
      if (error instanceof AppError && error.code === 'validation_failed' && error.errors) return { references: [], errors: error.errors }
      throw error
    },
  )
  let prepared: PreparedService<unknown>
  try {
    prepared = await kind.prepare(context, input)
  } catch (error) {
    const { errors } = await groups
    if (errors.length > 0 && error instanceof AppError && error.code === 'validation_failed' && error.errors) {
      throw validationFailed([...error.errors, ...errors])
    }
    throw error
  }
  const { references, errors } = await groups
  if (errors.length > 0) throw validationFailed(errors)
  return references.length === 0 ? prepared : { ...prepared, references: [...prepared.references, ...references] }
}
