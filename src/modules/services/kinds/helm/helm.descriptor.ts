import { SETTING_GROUPS as g } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { BOTH_LIMITS, CONFIG_SIZE_LIMIT, capitalized, ifMatchEdit } from '#src/modules/services/kind-docs.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { defaultLinkHost } from '#src/modules/services/service-links.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import { type HelmWrite, helmKind, toHelmRecord } from './helm.kind.ts'
import { type HelmDeployRequest as HelmDeployBody, HelmDeployRequest, HelmForceEventQuery, HelmRequest, HelmResponse } from './helm.schemas.ts'
import type { HelmConfig, HelmServiceRecord } from './helm.types.ts'
import { helmInput, toHelmResponse } from './helm.wire.ts'
import { helmWorkload } from './helm.workload.ts'
import type { HelmDeployOverrides } from './helm-deployments.ts'
import { helmRequestErrors } from './helm-request-rules.ts'

/** What a helm deploy request (alone, or in a bulk deploy's `helms`) asks for beyond the configuration. */
export const helmDeployOverrides = (body: HelmDeployBody | undefined): HelmDeployOverrides => ({
  chartVersion: body?.chart_version,
  gitCommitId: body?.git_commit_id,
  valuesOverrideGitCommitId: body?.values_override_git_commit_id,
})

/**
 * The validated body as the service's input, with what it breaks of the rules the schema cannot
 * say. A source that names no chart at all leaves no input to build: that is a 400 at once.
 */
function helmWrite(body: HelmRequest): HelmWrite {
  const ruleErrors = helmRequestErrors(body)
  if (!body.source.git_repository && !body.source.helm_repository) throw validationFailed(ruleErrors)
  return { input: helmInput(body), ruleErrors }
}

const CLUSTER_WIDE = 'Needs the WRITE role; `allow_cluster_wide_resources: true` needs ADMIN.'

/** Helm services: a chart of a helm repository or of a git repository, installed as a release. */
export const helmDescriptor = defineKind<HelmServiceRecord, HelmWrite>({
  kind: helmKind,
  names: { name: 'Helm', plural: 'Helms', aNoun: 'a helm', etagNoun: 'the helm service', list: 'listHelms' },
  deploy: {
    body: HelmDeployRequest,
    description: '`chart_version` applies to a chart of a helm repository, `git_commit_id` to one in a git repository.',
    overrides: (body) => helmDeployOverrides(body as HelmDeployBody | undefined),
  },
  actionQuery: HelmForceEventQuery,
  statusList: true,
  bulk: {
    deploy: { rank: 5, fields: ['chart_version', 'git_commit_id', 'values_override_git_commit_id'] },
    idsRank: 5,
    idsDescription: 'helm services',
    reboot: { rank: 4, description: 'Berth extension: helm services' },
  },
  schemas: { request: HelmRequest, response: HelmResponse },
  descriptions: {
    create: `${CLUSTER_WIDE} Berth limits: ${BOTH_LIMITS}`,
    edit: `A full replacement. ${CLUSTER_WIDE} ${ifMatchEdit('the service')} ${capitalized(CONFIG_SIZE_LIMIT)}.`,
  },
  createWrite: (body) => helmWrite(body as HelmRequest),
  toRecord: (service) => toHelmRecord(service as ServiceRecord<HelmConfig>),
  toResponse: toHelmResponse,
  features: {
    documentOrder: 4,
    variables: true,
    advancedSettings: {
      get: 'getHelmAdvancedSettings',
      edit: 'editHelmAdvancedSettings',
      title: 'HelmAdvancedSettings',
      settings: { ...g.customDomainCheck, ...g.ingress, ...g.requestBuffering, ...g.ingressAccess, ...g.gateway },
    },
    restrictions: true,
    customDomains: {
      ids: {
        list: 'listHelmCustomDomain',
        create: 'createHelmCustomDomain',
        edit: 'editHelmCustomDomain',
        delete: 'deleteHelmCustomDomain',
        get: 'getHelmCustomDomain',
        check: 'checkHelmCustomDomain',
      },
      getSuffix: '',
      validationDomain: (service) => defaultLinkHost(service.id),
    },
  },
  executors: { workload: helmWorkload },
})
