import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AnyKindDescriptor } from '#src/modules/services/kind-descriptor.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import {
  CheckedCustomDomainsResponse,
  CustomDomainRequest,
  CustomDomainResponse,
  CustomDomainResponseList,
  LinkResponseList,
} from './custom-domains.schemas.ts'
import type { CustomDomainsService } from './custom-domains.service.ts'
import { customDomainInput, toCheckedResponse, toCustomDomainResponse } from './custom-domains.wire.ts'

// The reference's three sets of custom domain operations: the same six for each kind, under the
// kind's path and operation ids (the application's edit, delete and status carry no kind in
// their ids; helm reads a domain without `/status`).

const STATUS =
  '`status` is always VALIDATION_PENDING, the one word of the reference; Berth extensions `check_status`, `check_error_details` and ' +
  '`checked_at` hold the outcome of the last check (checkCustomDomain), null before any, and forgotten when the domain is renamed.'
const VALIDATION =
  '`validation_domain` is the host of the service\'s default link (derived from its id; README, "Custom domains"): point the domain at it with a CNAME.'
const RULES =
  'Needs the WRITE role. 400 when the domain is not a public DNS name (RFC 1123 labels, at most 239 characters, 231 for a wildcard, no IP ' +
  "address, a wildcard only as `*.` in front), when it is or covers one of Berth's own names (the apps domain, BERTH_OWN_HOST_NAMES), when " +
  'it is already a domain of a service of the organization (case aside), or when the service has 100 domains. Berth extension: 409 when ' +
  'another service of the server (any organization) holds the name or a wildcard overlapping it, its check having proved it and proving it ' +
  'still (it is checked again at once); see docs/custom-domains.md.'

const held = Type.Ref('ErrorResponse', {
  description: 'Berth extension: another service of the server holds the name, or a wildcard overlapping it (`conflict`)',
})

/** The custom domain routes of each of `kinds` (those whose descriptor has `features.customDomains`). */
export function customDomainsRoutes(customDomains: CustomDomainsService, kinds: readonly AnyKindDescriptor[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { routes, names, features } of kinds) {
      const { ids, getSuffix } = features.customDomains!
      const kind = { type: routes.type, prefix: `/${routes.segment}`, param: routes.param, tag: `${names.name} Custom Domain`, ids, getSuffix }
      const Params = Type.Object({ [kind.param]: Uuid })
      const DomainParams = Type.Object({ [kind.param]: Uuid, customDomainId: Uuid })
      const base = `${kind.prefix}/:${kind.param}`
      const tags = [kind.tag]
      const serviceId = (params: unknown) => (params as Record<string, string>)[kind.param]!
      const domainId = (params: unknown) => (params as { customDomainId: string }).customDomainId

      app.get(
        `${base}/customDomain`,
        {
          schema: {
            operationId: kind.ids.list,
            summary: `List ${kind.type.toLowerCase()} custom domains`,
            description: `Oldest first. ${VALIDATION} ${STATUS}`,
            tags,
            params: Params,
            response: { 200: CustomDomainResponseList },
          },
        },
        async (req) => ({ results: (await customDomains.list(req.principal, kind.type, serviceId(req.params))).map(toCustomDomainResponse) }),
      )

      app.post(
        `${base}/customDomain`,
        {
          schema: {
            operationId: kind.ids.create,
            summary: `Add custom domain to the ${kind.type.toLowerCase()}`,
            description: `${RULES} ${VALIDATION}`,
            tags,
            params: Params,
            body: CustomDomainRequest,
            response: { 201: CustomDomainResponse, 409: held },
          },
        },
        async (req, reply) => {
          const created = await customDomains.create(req.principal, kind.type, serviceId(req.params), customDomainInput(req.body))
          return reply.code(201).send(toCustomDomainResponse(created))
        },
      )

      app.put(
        `${base}/customDomain/:customDomainId`,
        {
          schema: {
            operationId: kind.ids.edit,
            summary: 'Edit a Custom Domain',
            description: `A full replacement. ${RULES}`,
            tags,
            params: DomainParams,
            body: CustomDomainRequest,
            response: { 200: CustomDomainResponse, 409: held },
          },
        },
        async (req) =>
          toCustomDomainResponse(
            await customDomains.update(req.principal, kind.type, serviceId(req.params), domainId(req.params), customDomainInput(req.body)),
          ),
      )

      app.delete(
        `${base}/customDomain/:customDomainId`,
        {
          schema: {
            operationId: kind.ids.delete,
            summary: 'Delete a Custom Domain',
            description: 'Needs the WRITE role.',
            tags,
            params: DomainParams,
            response: { 204: Type.Null({ description: 'deleted' }) },
          },
        },
        async (req, reply) => {
          await customDomains.delete(req.principal, kind.type, serviceId(req.params), domainId(req.params))
          return reply.code(204).send(null)
        },
      )

      app.get(
        `${base}/customDomain/:customDomainId${kind.getSuffix}`,
        {
          schema: {
            operationId: kind.ids.get,
            summary: kind.getSuffix ? 'Get Custom Domain status' : 'Get a Custom Domain',
            description: `${STATUS} ${VALIDATION}`,
            tags,
            params: DomainParams,
            response: { 200: CustomDomainResponse },
          },
        },
        async (req) => toCustomDomainResponse(await customDomains.get(req.principal, kind.type, serviceId(req.params), domainId(req.params))),
      )

      app.get(
        `${base}/checkCustomDomain`,
        {
          schema: {
            operationId: kind.ids.check,
            summary: `Check ${kind.type.toLowerCase()} custom domains`,
            description:
              'Looks every domain of the service up in DNS now, each within BERTH_DOMAIN_CHECK_TIMEOUT_MS, and records the outcome with the domain. ' +
              'With `use_cdn` the domain must resolve to an IP address and its TXT record `ownership_txt_record` (Berth extension) must hold its ' +
              'token (RESOLVES_TO_IP; DOMAIN_NOT_CONFIGURED naming the record to add when it does not), else it must be a CNAME of `validation_domain` ' +
              '(MATCHES_LOAD_BALANCER_HOST); DOMAIN_NOT_CONFIGURED when it does not exist or has no such record, DOMAIN_LINKED_TO_WRONG_HOST ' +
              "for another CNAME or an address of the server's own network (loopback, private, link-local, metadata; allowed with " +
              'BERTH_ALLOW_PRIVATE_URLS=true) or for a name another service of the server holds, GENERIC_FAILURE when DNS fails or times out. ' +
              'A wildcard is checked through a name under it. A passing check verifies the domain: it holds its name on the server and is routed.',
            tags,
            params: Params,
            response: { 200: CheckedCustomDomainsResponse },
          },
        },
        async (req) => ({ results: (await customDomains.check(req.principal, kind.type, serviceId(req.params))).map(toCheckedResponse) }),
      )
    }

    app.get(
      '/helm/:helmId/link',
      {
        schema: {
          operationId: 'listHelmLinks',
          summary: 'List all URLs of the helm',
          description:
            "Every port of the chart at addresses Berth derives from the helm service's id (as for applications: `https://z<first 8 hex of the id>.berth.localhost` " +
            'for the default port, `https://p<internal port>-z….berth.localhost` per port), then `https://<domain>` per custom domain.',
          tags: ['Helm Main Calls'],
          params: Type.Object({ helmId: Uuid }),
          response: { 200: LinkResponseList },
        },
      },
      async (req) => ({ results: await customDomains.helmLinks(req.principal, req.params.helmId) }),
    )
  }
}
