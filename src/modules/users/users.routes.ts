import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AccountInfo } from './users.schemas.ts'
import type { UsersService } from './users.service.ts'
import { toAccountInfoResponse } from './users.wire.ts'

export function usersRoutes(users: UsersService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/account',
      {
        schema: {
          operationId: 'getAccountInformation',
          summary: 'Get Account information',
          description: 'The calling user, as known from its JWT; its `id` is what organization ADMINs use to add it as a member. API tokens get 403.',
          tags: ['Account Info'],
          response: { 200: AccountInfo },
        },
      },
      async (req) => toAccountInfoResponse(await users.account(req.principal)),
    )
  }
}
