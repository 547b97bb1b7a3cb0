// What each tab of a service's page is handed (service-page.tsx reads it once for all of them).
import type { EnvironmentContext } from './context.ts'
import type { AnyService, KindSpec } from './kinds.ts'
import type { Polled } from './polled.ts'
import type { List, Role, ServiceEntry, ServiceStatus } from './types.ts'

export interface ServiceTabProps {
  spec: KindSpec
  service: AnyService
  /** The service as saved by a form: every tab shows it from then on. */
  setService: (service: AnyService) => void
  etag: string | null
  role: Role
  context: EnvironmentContext
  status: Polled<ServiceStatus>
  history: Polled<List<ServiceEntry>>
  /** The execution ids of its dry runs among the history's entries. */
  dryRuns: Set<string> | undefined
  /** Its newest deploy that succeeded and was not a dry run: what runs. */
  running: ServiceEntry | undefined
  /** Reads status and history again now (after an action). */
  refresh: () => void
}
