import type { GitCommit } from '#src/modules/git-providers/git-provider-adapter.ts'
import { SETTING_GROUPS as g } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { BOTH_LIMITS, CONFIG_SIZE_LIMIT, capitalized, ifMatchEdit } from '#src/modules/services/kind-docs.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { defaultLinkHost } from '#src/modules/services/service-links.ts'
import { type ApplicationWrite, applicationKind, toApplicationRecord } from './application.kind.ts'
import { applicationMemberRoutes } from './application.routes.ts'
import {
  type ApplicationDeployRequest as ApplicationDeployBody,
  ApplicationDeployRequest,
  type ApplicationEditRequest,
  ApplicationEditRequest as ApplicationEditRequestSchema,
  type ApplicationRequest,
  ApplicationRequest as ApplicationRequestSchema,
  ApplicationResponse,
} from './application.schemas.ts'
import type { ApplicationConfig, ApplicationDeployOverrides, ApplicationRecord } from './application.types.ts'
import { applicationInput, toApplicationResponse } from './application.wire.ts'
import { applicationWorkload } from './application.workload.ts'
import { applicationRequestErrors } from './application-request-rules.ts'

/** What an application deploy request (alone, or in a bulk deploy's `applications`) asks for beyond the configuration. */
export const applicationDeployOverrides = (body: ApplicationDeployBody | undefined): ApplicationDeployOverrides =>
  body?.git_commit_id === undefined ? {} : { gitCommitId: body.git_commit_id }

const applicationWrite = (body: ApplicationRequest | ApplicationEditRequest): ApplicationWrite => ({
  input: applicationInput(body),
  ruleErrors: applicationRequestErrors(body),
  groups: groupIdsOfBody(body),
})

/** Applications: built from a git repository, run with their ports, storage and health checks. */
export const applicationDescriptor = defineKind<ApplicationRecord, ApplicationWrite>({
  kind: applicationKind,
  names: { name: 'Application', plural: 'Applications', aNoun: 'an application', etagNoun: 'the application' },
  deploy: {
    body: ApplicationDeployRequest,
    description:
      'Builds `git_commit_id` (a commit id, or a branch or tag), else the head of the branch when the deployment is queued: the commit is looked up at ' +
      "the git provider with the repository's git token, and the provider's answer decides (an unknown commit is a 400 at /git_commit_id; " +
      'an unreachable or failing provider a 502 or 504, a refused token a 400 `git_token_invalid`, a rate limit a 429), with nothing queued.',
    overrides: (body) => applicationDeployOverrides(body as ApplicationDeployBody | undefined),
  },
  reboot: true,
  statusList: true,
  bulk: {
    deploy: { rank: 1, idField: 'application_id', fields: ['git_commit_id'] },
    idsRank: 1,
    idsDescription: 'applications',
    reboot: { rank: 1, description: 'applications' },
  },
  schemas: { request: ApplicationRequestSchema, editRequest: ApplicationEditRequestSchema, response: ApplicationResponse },
  descriptions: {
    create: `Needs the WRITE role. The git repository is checked against the organization's git tokens as a helm chart's is. ${capitalized(BOTH_LIMITS)}`,
    get: 'Answers 304 when If-None-Match names the current ETag. `git_repository.deployed_commit_*` describe the commit its last successful deploy or redeploy built.',
    edit:
      'A full replacement: what the body leaves out takes its default, except `name` and `git_repository`, which stay as they are when absent. ' +
      'A port or storage keeps its id when the body names it by id (else by the port name or mount point). Needs the WRITE role. ' +
      `${ifMatchEdit('the application')} ${capitalized(CONFIG_SIZE_LIMIT)}.`,
  },
  createWrite: (body) => applicationWrite(body as ApplicationRequest),
  editWrite: (body) => applicationWrite(body as ApplicationEditRequest),
  // The environment's service list shows no deployed commit: only the application's own routes read it.
  toRecord: (service) => toApplicationRecord(service as ServiceRecord<ApplicationConfig>),
  // Each with the commit its last successful deploy or redeploy built.
  async records(services, { deployedOverrides }) {
    const deployed = await deployedOverrides(services.map((service) => service.id))
    return services.map((service) =>
      toApplicationRecord(service as ServiceRecord<ApplicationConfig>, (deployed.get(service.id)?.commit as GitCommit | undefined) ?? null),
    )
  },
  toResponse: toApplicationResponse,
  features: {
    documentOrder: 1,
    variables: true,
    advancedSettings: {
      get: 'getAdvancedSettings',
      edit: 'editAdvancedSettings',
      title: 'ApplicationAdvancedSettings',
      settings: {
        ...g.customDomainCheck,
        ...g.placement,
        ...g.pods,
        ...g.lifecycle,
        ...g.updateStrategy,
        ...g.build,
        ...g.ingress,
        ...g.ingressAccess,
        ...g.gateway,
        ...g.autoscaling,
        ...g.security,
      },
    },
    restrictions: true,
    scopedVariables: { importOperation: 'importEnvironmentVariable' },
    customDomains: {
      ids: {
        list: 'listApplicationCustomDomain',
        create: 'createApplicationCustomDomain',
        edit: 'editCustomDomain',
        delete: 'deleteCustomDomain',
        get: 'getCustomDomainStatus',
        check: 'checkApplicationCustomDomain',
      },
      getSuffix: '/status',
      validationDomain: (service) => defaultLinkHost(service.id),
    },
  },
  ownRoutes: { after: applicationMemberRoutes },
  executors: { workload: applicationWorkload },
})
