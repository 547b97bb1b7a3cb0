import { type TSchema, Type } from 'typebox'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { ListResponse } from '#src/platform/http/lists.ts'
import { SERVICE_LIST_HAS_MORE } from './service-lists.ts'

// The wire shapes every kind's routes share, named after the kind.

/** The path parameter of one service of a kind: `{ helmId }`. */
export const kindParams = <P extends string>(param: P) => Type.Object({ [param]: Uuid } as Record<P, typeof Uuid>)

/** The query of a service's delete. */
export const DeleteServiceQuery = Type.Object({
  skipReconcile: Type.Optional(Type.Boolean({ default: false, description: 'accepted for compatibility; nothing to reconcile yet' })),
})

/** A page of an environment's services of a kind: `HelmResponseList`. */
export const kindResponseList = (response: TSchema, name: string) => ListResponse(response, `${name}ResponseList`, SERVICE_LIST_HAS_MORE)
