import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { coreRecordFields } from '#src/modules/services/service-records.ts'
import type { GitOpsConfig, GitOpsRecord } from './gitops.types.ts'

export const GITOPS_ICON = 'app://qovery-console/argocd'

export const toGitOpsRecord = (service: ServiceRecord<GitOpsConfig>): GitOpsRecord => ({ ...coreRecordFields(service), version: service.version })

export const toGitOpsResponse = (record: GitOpsRecord) => ({
  id: record.id,
  created_at: record.createdAt.toISOString(),
  updated_at: record.updatedAt.toISOString(),
  environment: { id: record.environmentId },
  name: record.name,
  service_type: 'GITOPS_APP' as const,
  namespace: record.namespace,
  icon_uri: GITOPS_ICON,
  description: null,
})
