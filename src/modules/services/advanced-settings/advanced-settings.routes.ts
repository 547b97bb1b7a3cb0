import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import type { AnyKindDescriptor } from '../kind-descriptor.ts'
import { settingsRequestOf, settingsResponseOf } from './advanced-settings.schemas.ts'
import type { AdvancedSettingsService } from './advanced-settings.service.ts'

// The advanced settings routes of each kind, with the public document's paths and operation ids.

const KEPT = 'Berth keeps them and honours none yet (the simulator has no cluster).'

/** The advanced settings routes of each of `kinds` (those whose descriptor has `features.advancedSettings`). */
export function advancedSettingsRoutes(settings: AdvancedSettingsService, kinds: readonly AnyKindDescriptor[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { routes, names, features } of kinds) {
      const k = {
        kind: routes.type,
        noun: routes.segment,
        segment: routes.segment,
        param: routes.param,
        ...features.advancedSettings!,
        tag: `${names.name} Configuration`,
        defaultPath: `/default${names.name}AdvancedSettings`,
        defaultOperation: `getDefault${names.name}AdvancedSettings`,
        defaultTag: names.plural,
      }
      const params = Type.Object({ [k.param]: Uuid })
      const response = settingsResponseOf(k.title, k.settings)
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
            body: settingsRequestOf(k.title, k.settings),
            response: { 201: response },
          },
        },
        async (req, reply) => reply.code(201).send(await settings.edit(req.principal, k.kind, serviceId(req), req.body as Record<string, unknown>)),
      )
    }
  }
}
