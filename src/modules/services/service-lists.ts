import { Type } from 'typebox'

// What the lists of an environment's services (of one kind, or all) share on the wire: their
// page's bounds, said in their OpenAPI description, and the extension that continues them.

/**
 * How long a page of services may take to be written out to its client; past it the connection is
 * closed. Until then the organization's next list waits (services.service.ts, `list`).
 */
export const LIST_WRITE_TIMEOUT_MS = 60_000

/** The OpenAPI description of a list of services: what a page holds and how to read the next. */
export const SERVICE_LIST_DESCRIPTION =
  'By name, then id. Berth extensions: a page holds at most BERTH_LIST_LIMIT services (1000 by default) and stops before ' +
  'their stored configurations add up to more than BERTH_LIST_MAX_BYTES (8 MiB by default), though it always holds one; ' +
  '`has_more` says whether services were left out, and `startId` (the id of the last service you have) reads the page after it. ' +
  'An unknown `startId` is a 400.'

export const SERVICE_LIST_HAS_MORE =
  'Berth extension: true when services were left out of this page (BERTH_LIST_LIMIT or BERTH_LIST_MAX_BYTES); ' +
  'pass the id of its last service as `startId` to read the next'

export const ServiceListQuery = Type.Object({
  startId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Berth extension: the id of the last service you have; the page holds the services after it' }),
  ),
})
