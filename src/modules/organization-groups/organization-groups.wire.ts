import type { AssociatedItemRow, GroupColumns, GroupRow } from './organization-groups.repository.ts'
import type {
  AnnotationsGroupRequest,
  AnnotationsGroupResponse,
  AnnotationsGroupScope,
  AssociatedItemType,
  LabelsGroupRequest,
  LabelsGroupResponse,
} from './organization-groups.schemas.ts'

type Label = LabelsGroupResponse['labels'][number]
type Annotation = AnnotationsGroupResponse['annotations'][number]

const base = (row: Pick<GroupRow, 'id' | 'createdAt' | 'updatedAt'>) => ({
  id: row.id,
  created_at: row.createdAt.toISOString(),
  ...(row.updatedAt ? { updated_at: row.updatedAt.toISOString() } : {}),
})

export const labelsGroupColumns = (body: LabelsGroupRequest): GroupColumns => ({
  name: body.name,
  entries: body.labels.map(({ key, value, propagate_to_cloud_provider }) => ({ key, value, propagate_to_cloud_provider })),
  scopes: [],
})

export const annotationsGroupColumns = (body: AnnotationsGroupRequest): GroupColumns => ({
  name: body.name,
  entries: body.annotations.map(({ key, value }) => ({ key, value })),
  scopes: [...new Set(body.scopes)],
})

/** Also the shape of a labels group in a service's `labels_groups`. */
export const toLabelsGroupResponse = (row: Pick<GroupRow, 'id' | 'createdAt' | 'updatedAt' | 'name' | 'entries'>): LabelsGroupResponse => ({
  ...base(row),
  name: row.name,
  labels: row.entries as Label[],
})

/** Also the shape of an annotations group in a service's `annotations_groups`. */
export const toAnnotationsGroupResponse = (
  row: Pick<GroupRow, 'id' | 'createdAt' | 'updatedAt' | 'name' | 'entries' | 'scopes'>,
): AnnotationsGroupResponse => ({
  ...base(row),
  name: row.name,
  annotations: row.entries as Annotation[],
  scopes: row.scopes as AnnotationsGroupScope[],
})

const itemType = (item: AssociatedItemRow): AssociatedItemType => {
  if (item.kind === 'JOB') return item.cronJob ? 'CRON' : 'LIFECYCLE'
  return item.kind as AssociatedItemType
}

export const toAssociatedItem = (item: AssociatedItemRow) => ({
  cluster_id: item.clusterId,
  cluster_name: item.clusterName,
  project_id: item.projectId,
  project_name: item.projectName,
  environment_id: item.environmentId,
  environment_name: item.environmentName,
  item_id: item.serviceId,
  item_name: item.serviceName,
  item_type: itemType(item),
})
