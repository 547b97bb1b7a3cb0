import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { type SettingsKind, settingsRequest, settingsResponse } from './advanced-settings.schemas.ts'
import type { AdvancedSettingsService } from './advanced-settings.service.ts'

// The advanced settings routes of each kind, with the public document's paths and operation ids.

interface KindRoutes {
  kind: SettingsKind
  noun: string
  /** The path segment and parameter of the kind's services: `/job/{jobId}`. */
  segment: string
  param: string
  get: string
  edit: string
  tag: string
  defaultPath: string
  defaultOperation: string
  defaultTag: string
}

const KINDS: KindRoutes[] = [
  {
    kind: 'APPLICATION',
    noun: 'application',
    segment: 'application',
    param: 'applicationId',
    get: 'getAdvancedSettings',
    edit: 'editAdvancedSettings',
    tag: 'Application Configuration',
    defaultPath: '/defaultApplicationAdvancedSettings',
    defaultOperation: 'getDefaultApplicationAdvancedSettings',
    defaultTag: 'Applications',
  },
  {
    kind: 'CONTAINER',
    noun: 'container',
    segment: 'container',
    param: 'containerId',
    get: 'getContainerAdvancedSettings',
    edit: 'editContainerAdvancedSettings',
    tag: 'Container Configuration',
    defaultPath: '/defaultContainerAdvancedSettings',
    defaultOperation: 'getDefaultContainerAdvancedSettings',
    defaultTag: 'Containers',
  },
  {
    kind: 'JOB',
    noun: 'job',
    segment: 'job',
    param: 'jobId',
    get: 'getJobAdvancedSettings',
    edit: 'editJobAdvancedSettings',
    tag: 'Job Configuration',
    defaultPath: '/defaultJobAdvancedSettings',
    defaultOperation: 'getDefaultJobAdvancedSettings',
    defaultTag: 'Jobs',
  },
  {
    kind: 'HELM',
    noun: 'helm',
    segment: 'helm',
    param: 'helmId',
    get: 'getHelmAdvancedSettings',
    edit: 'editHelmAdvancedSettings',
    tag: 'Helm Configuration',
    defaultPath: '/defaultHelmAdvancedSettings',
    defaultOperation: 'getDefaultHelmAdvancedSettings',
    defaultTag: 'Helms',
  },
]

const KEPT = 'Berth keeps them and honours none yet (the simulator has no cluster).'

export function advancedSettingsRoutes(settings: AdvancedSettingsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const k of KINDS) {
      const params = Type.Object({ [k.param]: Uuid })
      const response = settingsResponse(k.kind)
      const serviceId = (req: { params: Record<string, string> }) => req.params[k.param] as string

      app.get(
        k.defaultPath,
        {
          schema: {
            operationId: k.defaultOperation,
            summary: `List default ${k.noun} advanced settings`,
            description: `Every advanced setting of a ${k.noun}, with the value it has until it is edited.`,
            tags: [k.defaultTag],
            response: { 200: response },
          },
        },
        async () => settings.defaults(k.kind),
      )

      app.get(
        `/${k.segment}/:${k.param}/advancedSettings`,
        {
          schema: {
            operationId: k.get,
            summary: 'Get advanced settings',
            description: `Every advanced setting of the ${k.noun}: its defaults overlaid with what it was given. ${KEPT}`,
            tags: [k.tag],
            params,
            response: { 200: response },
          },
        },
        async (req) => settings.get(req.principal, k.kind, serviceId(req)),
      )

      app.put(
        `/${k.segment}/:${k.param}/advancedSettings`,
        {
          schema: {
            operationId: k.edit,
            summary: 'Edit advanced settings',
            description: `Needs the WRITE role. The keys given replace the ${k.noun}'s; the others keep their value. A key the ${k.noun} does not have, or a value of the wrong type or out of range, is a 400 naming it. ${KEPT}`,
            tags: [k.tag],
            params,
            body: settingsRequest(k.kind),
            response: { 201: response },
          },
        },
        async (req, reply) => reply.code(201).send(await settings.edit(req.principal, k.kind, serviceId(req), req.body as Record<string, unknown>)),
      )
    }
  }
}
