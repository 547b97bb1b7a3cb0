import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose'
import Provider, { type Adapter, type AdapterPayload, type Configuration } from 'oidc-provider'
import type { TestApp } from './app.ts'
import { assertError } from './assertions.ts'

/** The audience Berth is configured with in the tests; the provider issues tokens for it by default. */
export const TEST_AUDIENCE = 'https://berth.test/api'

export type SigningAlg = 'RS256' | 'PS256' | 'ES256' | 'EdDSA'

export interface TestUser {
  /** The JWT subject: the provider's client id of this user. */
  subject: string
  clientSecret: string
  name: string | undefined
  email: string | undefined
}

export interface TestIdentityProvider {
  issuer: string
  /** The environment that points Berth at this provider. */
  env: Record<string, string>
  /** How many times someone fetched the provider's JWKS. */
  jwksFetches(): number
  /**
   * A user of the provider (a client of its client-credentials grant, registered through its
   * dynamic registration endpoint); the provider puts `name` and `email` into its access tokens.
   */
  user(options?: { name?: string; email?: string; alg?: SigningAlg }): Promise<TestUser>
  /** A JWT access token that the provider issues to the user for `resource` (Berth's audience by default). */
  accessToken(user: TestUser, options?: { resource?: string }): Promise<string>
  /** Replaces the provider's signing keys with new ones of new `kid`s, as a key rotation does. */
  rotateKeys(): Promise<void>
  /** A token with arbitrary claims and header, signed with the provider's current RS256 key. */
  forge(payload: JWTPayload, options?: { header?: Record<string, unknown> }): Promise<string>
  /** The provider's current RS256 public key as a JWK. */
  publicRsaKey(): JWK
  close(): Promise<void>
}

interface KeySet {
  keys: JWK[]
  rsa: JWK
}

async function makeKeys(): Promise<KeySet> {
  const generation = randomUUID().slice(0, 8)
  const make = async (alg: string, options: { crv?: string; modulusLength?: number } = {}) => {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...options })
    return { ...(await exportJWK(privateKey)), kid: `${alg.toLowerCase()}-${generation}`, use: 'sig', alg }
  }
  const rsa = await make('RS256', { modulusLength: 2048 })
  const keys = [rsa, { ...rsa, kid: `ps256-${generation}`, alg: 'PS256' }, await make('ES256'), await make('EdDSA', { crv: 'Ed25519' })]
  return { keys, rsa }
}

/**
 * The provider's storage (registered clients, issued tokens), kept across key rotations. Tokens
 * are never introspected here, so lookups by user code, uid or grant are not needed.
 */
function memoryAdapter(store: Map<string, AdapterPayload>) {
  return (model: string): Adapter => ({
    upsert: async (id, payload) => void store.set(`${model}:${id}`, payload),
    find: async (id) => store.get(`${model}:${id}`),
    findByUserCode: async () => undefined,
    findByUid: async () => undefined,
    consume: async (id) => {
      const payload = store.get(`${model}:${id}`)
      if (payload) payload.consumed = Math.floor(Date.now() / 1000)
    },
    destroy: async (id) => void store.delete(`${model}:${id}`),
    revokeByGrantId: async () => undefined,
  })
}

function configuration(keys: KeySet, store: Map<string, AdapterPayload>): Configuration {
  return {
    adapter: memoryAdapter(store),
    cookies: { keys: [randomUUID()] },
    ttl: { ClientCredentials: 300 },
    jwks: { keys: keys.keys as Configuration['jwks'] extends { keys: infer K } | undefined ? K : never },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => TEST_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: 'api',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: (client.metadata().token_alg as SigningAlg | undefined) ?? 'RS256' } },
        }),
      },
    },
    extraClientMetadata: { properties: ['user_name', 'user_email', 'token_alg'] },
    async extraTokenClaims(ctx, token) {
      const client = ctx.oidc.client ?? (await ctx.oidc.provider.Client.find(token.clientId!))
      const metadata: Record<string, unknown> = client?.metadata() ?? {}
      return {
        ...(metadata.user_name ? { name: metadata.user_name } : {}),
        ...(metadata.user_email ? { email: metadata.user_email } : {}),
      }
    },
  }
}

/**
 * A real OpenID provider (npm `oidc-provider`) listening on loopback: discovery, JWKS, dynamic
 * client registration and the client-credentials grant issuing JWT access tokens.
 */
export async function startOidcProvider(options: { port?: number } = {}): Promise<TestIdentityProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end()
  let fetches = 0
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) fetches++
    handler(req, res)
  })
  // Clients (undici's fetch) let an idle connection go after 4 s; a server closing it at its default
  // 5 s may do so as a late-running client reuses it (ECONNRESET on a loaded machine): the client closes first.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', resolve)
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  let keys = await makeKeys()
  const store = new Map<string, AdapterPayload>()
  const install = () => {
    const provider = new Provider(issuer, configuration(keys, store))
    handler = provider.callback()
  }
  install()

  async function post(path: string, body: string, headers: Record<string, string>) {
    const res = await fetch(`${issuer}${path}`, { method: 'POST', body, headers })
    const json = (await res.json()) as Record<string, string>
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json)}`)
    return json
  }

  return {
    issuer,
    env: { BERTH_OIDC_ISSUER: issuer, BERTH_OIDC_AUDIENCE: TEST_AUDIENCE },
    jwksFetches: () => fetches,

    async user({ name, email, alg } = {}) {
      const registered = await post(
        '/reg',
        JSON.stringify({
          grant_types: ['client_credentials'],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: 'client_secret_basic',
          ...(name ? { user_name: name } : {}),
          ...(email ? { user_email: email } : {}),
          ...(alg ? { token_alg: alg } : {}),
        }),
        { 'content-type': 'application/json' },
      )
      return { subject: registered.client_id!, clientSecret: registered.client_secret!, name, email }
    },

    async accessToken(user, { resource = TEST_AUDIENCE } = {}) {
      const credentials = Buffer.from(`${encodeURIComponent(user.subject)}:${encodeURIComponent(user.clientSecret)}`).toString('base64')
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api', resource }).toString()
      const token = await post('/token', body, { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${credentials}` })
      return token.access_token!
    },

    async rotateKeys() {
      keys = await makeKeys()
      install()
    },

    async forge(payload, { header = {} } = {}) {
      const key = await importJWK(keys.rsa, 'RS256')
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: keys.rsa.kid, typ: 'at+jwt', ...header }).sign(key)
    },

    publicRsaKey() {
      const { kty, n, e, kid } = keys.rsa
      return { kty, n, e, kid } as JWK
    },

    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface StaticIssuer {
  issuer: string
  /** The environment that points Berth at this issuer. */
  env: Record<string, string>
  /** How many times someone fetched the key set. */
  jwksFetches(): number
  close(): Promise<void>
}

/**
 * A bare issuer on loopback: a discovery document and a fixed key set, for what a real provider
 * will not publish (several keys of one type, weak keys, a document naming another issuer).
 * `discovery` rewrites the document; `keys` are public JWKs.
 */
export async function startStaticIssuer(
  keys: JWK[],
  discovery: (document: { issuer: string; jwks_uri: string }) => Record<string, unknown> = (document) => document,
): Promise<StaticIssuer> {
  let fetches = 0
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(discovery({ issuer, jwks_uri: `${issuer}/jwks` })))
    } else if (req.url === '/jwks') {
      fetches++
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }))
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    env: { BERTH_OIDC_ISSUER: issuer, BERTH_OIDC_AUDIENCE: TEST_AUDIENCE },
    jwksFetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Asserts a 401 whose message names the failed check and contains no part of the token. */
export async function assertRejected(t: TestApp, token: string, reason: RegExp) {
  const res = await t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Bearer ${token}` } })
  const body = assertError(res, 401, 'unauthenticated')
  assert.match(body.message, reason)
  for (const part of [token, ...token.split('.')].filter((p) => p.length >= 8)) {
    assert.ok(!res.body.includes(part), `the response echoes part of the token: ${res.body}`)
  }
  return body
}
