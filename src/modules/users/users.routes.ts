import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AccountInfo, AccountInfoEditRequest } from './users.schemas.ts'
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

    app.put(
      '/account',
      {
        schema: {
          operationId: 'editAccountInformation',
          summary: 'Edit account information',
          description:
            "Sets the calling user's `communication_email` (else its JWT's `email` claim is shown); Berth itself sends no email, " +
            'and what the reference keeps of the account beyond that (nickname, names, picture) comes from the JWT here. API tokens get 403.',
          tags: ['Account Info'],
          body: AccountInfoEditRequest,
          response: { 200: AccountInfo },
        },
      },
      async (req) => toAccountInfoResponse(await users.editAccount(req.principal, { communicationEmail: req.body.communication_email })),
    )
  }
}
