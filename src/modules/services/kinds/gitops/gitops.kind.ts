import type { ServiceKind } from '#src/modules/services/service-kinds.ts'
import { AppError, type FieldError } from '#src/platform/http/errors.ts'
import { ARGO_CD_OWNS, type GitOpsConfig, type GitOpsOverrides } from './gitops.types.ts'
import { GITOPS_ICON } from './gitops.wire.ts'

const refused = () => new AppError('validation_failed', ARGO_CD_OWNS)

/** The GITOPS_APP kind: an Argo CD application, made and removed by the poller, deployed by asking Argo CD (docs/argocd.md). */
export const gitOpsKind: ServiceKind<object, GitOpsConfig, GitOpsOverrides> = {
  type: 'GITOPS_APP',
  noun: 'gitops app',
  referencePaths: {},
  prepare: () => Promise.reject(refused()),
  cloneInput: () => {
    throw refused()
  },
  overrideErrors(_configuration, overrides): FieldError[] {
    const { revision } = overrides
    return revision !== undefined && (typeof revision !== 'string' || revision === '')
      ? [{ path: '/revision', message: 'must be a git revision', location: 'body' }]
      : []
  },
  /** Stop is Argo CD's to do (it has none): refused before anything is queued. */
  async resolveOverrides(_configuration, overrides, { trigger }) {
    if (trigger === 'STOP') throw refused()
    return overrides
  },
  details: (_configuration, overrides) => {
    const revision = overrides.argocd_observed?.revision ?? overrides.revision
    return revision ? { git_commit_id: revision } : {}
  },
  iconUri: () => GITOPS_ICON,
  simulatesFailure: () => false,
  plan: (snapshot, action) => [
    { step: action === 'DEPLOY_DRY_RUN' ? 'Diff' : 'Sync', lines: [`ask Argo CD about ${snapshot.configuration.application}`] },
  ],
}
