import type { LogLine } from '#src/modules/deployments/api/logs/deployment-logs.repository.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { logLineUuid, type ServiceHistoryEntry } from './service-views.service.ts'

// The reference's v1 shapes of what the V2 history and the log lines hold.

const FAILED = /(_ERROR|^CANCELED)$/
const SUCCEEDED = new Set(['DEPLOYED', 'STOPPED', 'DELETED', 'RESTARTED', 'READY'])

/** A service's V2 history entry told the v1 way; an application's status is FAILED or SUCCESS once it ended. */
export function toHistoryV1(entry: ServiceHistoryEntry, kind: ServiceType) {
  const base = {
    ...(entry.details ?? {}),
    id: entry.identifier.execution_id,
    created_at: entry.auditing_data.created_at,
    updated_at: entry.auditing_data.updated_at,
    name: entry.identifier.name,
  }
  if (kind !== 'APPLICATION') return { ...base, status: entry.status }
  const status = FAILED.test(entry.status) ? 'FAILED' : SUCCEEDED.has(entry.status) ? 'SUCCESS' : undefined
  return { ...base, ...(status ? { status } : {}) }
}

export const toEnvironmentLog = (line: LogLine) => ({
  id: logLineUuid(line),
  created_at: line.createdAt.toISOString(),
  scope: {
    type: line.transmitterType === 'ENVIRONMENT' || line.transmitterType === 'DATABASE' ? line.transmitterType : ('APPLICATION' as const),
    name: line.transmitterName,
    id: line.serviceId ?? line.environmentId,
  },
  message: line.message,
  execution_id: line.executionId,
})
