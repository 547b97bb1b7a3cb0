import { KIND_ROUTES, KINDS } from './kinds/registry.ts'
import type { ServiceRecord } from './service-kinds.ts'

// What a deploy of a pushed commit asks of a service (a push's and a pull request preview's).

/** The kind's deploy request with `git_commit_id`, and what the kind adds for a push (an IAC service's terraform_action). */
export const commitOverrides = (service: ServiceRecord, commit: string) => ({
  ...(KIND_ROUTES.find((kind) => kind.type === service.kind)?.deploy.overrides({ git_commit_id: commit }) ?? {}),
  ...KINDS.get(service.kind)?.pushOverrides?.(service.configuration),
})
