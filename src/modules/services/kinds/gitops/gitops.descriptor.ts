import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { gitOpsKind } from './gitops.kind.ts'
import { type GitOpsAppDeployRequest as DeployBody, GitOpsAppDeployRequest, GitOpsAppRequest, GitOpsAppResponse } from './gitops.schemas.ts'
import { ARGO_CD_OWNS, type GitOpsConfig, type GitOpsRecord } from './gitops.types.ts'
import { toGitOpsRecord, toGitOpsResponse } from './gitops.wire.ts'
import { gitOpsWorkload } from './gitops.workload.ts'

/**
 * GITOPS_APP services (the reference's ARGOCD_APP): the applications an Argo CD deploys, made and
 * removed by the poller (docs/argocd.md). A deploy asks Argo CD to sync; create, edit and stop are
 * refused with 400.
 */
export const gitOpsDescriptor = defineKind<GitOpsRecord, object>({
  kind: gitOpsKind,
  names: { name: 'GitopsApp', plural: 'GitopsApps', aNoun: 'a gitops app', etagNoun: 'the gitops app' },
  deploy: {
    body: GitOpsAppDeployRequest,
    description:
      'Berth extension: asks Argo CD to sync the application, at `revision` when given; with `dry_run`, Argo CD computes the sync without applying it.',
    overrides: (body) => {
      const revision = (body as DeployBody | undefined)?.revision
      return revision ? { revision } : {}
    },
  },
  bulk: { deploy: { rank: 7, fields: ['revision'] }, idsRank: 7, idsDescription: 'Berth extension: gitops apps' },
  schemas: { request: GitOpsAppRequest, response: GitOpsAppResponse },
  descriptions: {
    create: `Refused with 400: ${ARGO_CD_OWNS}.`,
    edit: `Refused with 400: ${ARGO_CD_OWNS}.`,
    delete: 'Berth forgets the service; Argo CD keeps the application, and the next poll shows it again while its destination is mapped.',
  },
  // The kind's `prepare` refuses it, once the caller's role is checked.
  createWrite: () => ({}),
  toRecord: (service) => toGitOpsRecord(service as ServiceRecord<GitOpsConfig>),
  toResponse: toGitOpsResponse,
  features: { documentOrder: 6 },
  executors: { kubernetes: gitOpsWorkload, docker: gitOpsWorkload },
})
