import { SETTING_GROUPS as g } from '#src/modules/services/advanced-settings/advanced-settings.schemas.ts'
import { defineKind } from '#src/modules/services/kind-descriptor.ts'
import { CONFIG_SIZE_LIMIT, capitalized, ifMatchEdit, SERVICES_LIMIT } from '#src/modules/services/kind-docs.ts'
import { groupIdsOfBody } from '#src/modules/services/service-groups.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import { type ContainerWrite, containerKind, toContainerRecord } from './container.kind.ts'
import { containerMemberRoutes, containerStatusRoutes } from './container.routes.ts'
import {
  type ContainerDeployRequest as ContainerDeployBody,
  ContainerDeployRequest,
  ContainerRequest,
  ContainerResponse,
} from './container.schemas.ts'
import type { ContainerConfig, ContainerServiceRecord } from './container.types.ts'
import { containerInput, toContainerResponse } from './container.wire.ts'
import { containerWorkload } from './container.workload.ts'
import type { ContainerDeployOverrides } from './container-deployments.ts'
import { containerHost } from './container-links.ts'
import { containerRequestErrors } from './container-request-rules.ts'

/** What a container deploy request (alone, or in a bulk deploy's `containers`) asks for beyond the configuration. */
// An empty tag is what the Go client sends for ContainerDeployRequest{} (its field is required).
export const containerDeployOverrides = (body: ContainerDeployBody | undefined): ContainerDeployOverrides =>
  body?.image_tag === undefined || body.image_tag === '' ? {} : { imageTag: body.image_tag }

/** The validated body as the service's input, with what it breaks of the rules the schema cannot say. */
const containerWrite = (body: ContainerRequest): ContainerWrite => ({
  input: containerInput(body),
  ruleErrors: containerRequestErrors(body),
  groups: groupIdsOfBody(body),
})

const LIMITS = `${capitalized(CONFIG_SIZE_LIMIT)}. An unknown \`registry_id\` is a 400 at /registry_id.`

/** Containers: an image of a container registry, run with its ports, storage and health checks. */
export const containerDescriptor = defineKind<ContainerServiceRecord, ContainerWrite>({
  kind: containerKind,
  names: { name: 'Container', plural: 'Containers', aNoun: 'a container', etagNoun: 'the container' },
  deploy: {
    body: ContainerDeployRequest,
    description: '`image_tag` deploys that tag of the image instead of the configured one (the configuration keeps its tag).',
    overrides: (body) => containerDeployOverrides(body as ContainerDeployBody | undefined),
  },
  bulk: { deploy: { rank: 3, fields: ['image_tag'] }, idsRank: 2, idsDescription: 'containers', reboot: { rank: 3, description: 'containers' } },
  schemas: { request: ContainerRequest, response: ContainerResponse },
  descriptions: {
    create: `Needs the WRITE role. ${LIMITS} ${capitalized(SERVICES_LIMIT)}`,
    edit:
      "A full replacement. Needs the WRITE role. A port or storage entry that names the id of one of the container's keeps it (a port without " +
      `id keeps the id of the port of the same name); entries left out are removed. ${ifMatchEdit('the container')} ${LIMITS}`,
  },
  createWrite: (body) => containerWrite(body as ContainerRequest),
  toRecord: (service) => toContainerRecord(service as ServiceRecord<ContainerConfig>),
  toResponse: toContainerResponse,
  features: {
    documentOrder: 2,
    variables: true,
    advancedSettings: {
      get: 'getContainerAdvancedSettings',
      edit: 'editContainerAdvancedSettings',
      title: 'ContainerAdvancedSettings',
      settings: {
        ...g.customDomainCheck,
        ...g.placement,
        ...g.pods,
        ...g.updateStrategy,
        ...g.ingress,
        ...g.requestBuffering,
        ...g.ingressAccess,
        ...g.gateway,
        ...g.autoscaling,
        ...g.security,
      },
    },
    scopedVariables: { importOperation: 'importContainerEnvironmentVariable' },
    customDomains: {
      ids: {
        list: 'listContainerCustomDomain',
        create: 'createContainerCustomDomain',
        edit: 'editContainerCustomDomain',
        delete: 'deleteContainerCustomDomain',
        get: 'getContainerCustomDomainStatus',
        check: 'checkContainerCustomDomain',
      },
      getSuffix: '/status',
      validationDomain: (service) => containerHost(service),
    },
  },
  ownRoutes: { before: containerStatusRoutes, after: containerMemberRoutes },
  executors: { workload: containerWorkload },
})
