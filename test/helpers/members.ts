import assert from 'node:assert/strict'
import type { TestApp } from './app.ts'
import { uniqueName } from './factories.ts'
import type { TestIdentityProvider } from './oidc-provider.ts'

export interface Person {
  id: string
  name: string
  authorization: string
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Calls for the members tests, for a suite whose app and provider are made in `before` (hence
 * the getters): users of the provider, their organizations and membership changes.
 */
export function memberCalls(app: () => TestApp, provider: () => TestIdentityProvider) {
  const request = (authorization: string, method: Method, url: string, payload?: object) =>
    app().app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) })

  return {
    request,

    /** A user of the provider who has called Berth once, so Berth knows its id. */
    async person(first: string): Promise<Person> {
      const name = uniqueName(first)
      const idp = provider()
      const authorization = `Bearer ${await idp.accessToken(await idp.user({ name, email: `${name.replace(' ', '.')}@example.com` }))}`
      const account = await request(authorization, 'GET', '/account')
      assert.equal(account.statusCode, 200, account.body)
      return { id: account.json().id, name, authorization }
    },

    /** A new organization with `owner` as its ADMIN member. */
    async organizationOf(owner: Person): Promise<string> {
      const res = await request(owner.authorization, 'POST', '/organization', { name: uniqueName('org'), plan: 'FREE' })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().id
    },

    async members(by: Person, organizationId: string) {
      const res = await request(by.authorization, 'GET', `/organization/${organizationId}/member`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().results as { id: string; role: string; name?: string; email: string; role_id: string }[]
    },

    put: (by: { authorization: string }, organizationId: string, userId: string, body: object) =>
      request(by.authorization, 'PUT', `/organization/${organizationId}/member/${userId}`, body),

    remove: (by: { authorization: string }, organizationId: string, userId: string) =>
      request(by.authorization, 'DELETE', `/organization/${organizationId}/member/${userId}`),

    /** Creates an API token as `by` (a person's or a token's `Authorization`); returns the response. */
    createToken: (authorization: string, organizationId: string, body: { name: string; role: string }) =>
      request(authorization, 'POST', `/organization/${organizationId}/apiToken`, body),
  }
}
