/**
 * Issue 23: one sweep of every operation of the served OpenAPI document (`/openapi.json`), so that
 * a new route joins it by being documented. At each: 401 without credentials; 403, changing
 * nothing, for each role below the route's required role; the required role itself let through;
 * and 404, changing nothing, for another organization's real resources, with a body identical
 * (request_id aside) to that for random ids, so that nothing tells one from the other.
 *
 * The required role is derived from the route: GET reads (READ), deployment actions need DEPLOY,
 * managing organizations and members needs ADMIN, any other write needs WRITE; the few routes that
 * differ are in `ROLE_EXCEPTIONS`, each with its reason.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import type { Role } from '#src/platform/auth/roles.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'
import {
  BASE_BODIES,
  BASE_QUERIES,
  changedTables,
  checkAnswer,
  createWorld,
  FAKE_REPOSITORY,
  injectStream,
  type Kind,
  kindsMadeFrom,
  paramKind,
  queryValue,
  type Rendered,
  type Route,
  routeKey,
  routesOf,
  snapshotter,
  TEXT_BODIES,
  UNSERVED_PARAMS,
  type World,
  webhookProviderOf,
  worldKinds,
} from './helpers/hostile.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './helpers/isolated-database.ts'

const ISSUER = 'https://sweep.issuer.example.com'

/** Routes whose required role is not the one their method and path suggest. */
const ROLE_EXCEPTIONS: Record<string, Role> = {
  // Any member may mint tokens up to its own role; the sweep asks for READ tokens.
  'POST /organization/{organizationId}/apiToken': 'READ',
  // The world's token to delete was not created by the caller: that needs ADMIN.
  'DELETE /organization/{organizationId}/apiToken/{apiTokenId}': 'ADMIN',
  // Members (their names and emails) are for ADMINs only.
  'GET /organization/{organizationId}/member': 'ADMIN',
  // The only answer that holds a database's password.
  'GET /database/{databaseId}/masterCredentials': 'WRITE',
  // The git webhook secret is shown to, made and removed by ADMINs only.
  'GET /organization/{organizationId}/gitWebhookSecret': 'ADMIN',
  'POST /organization/{organizationId}/gitWebhookSecret': 'ADMIN',
  'DELETE /organization/{organizationId}/gitWebhookSecret': 'ADMIN',
  // Invitations (emails of people not yet members) are for ADMINs only, as members are.
  'GET /organization/{organizationId}/inviteMember': 'ADMIN',
  'POST /organization/{organizationId}/inviteMember': 'ADMIN',
  'GET /organization/{organizationId}/inviteMember/{inviteId}': 'ADMIN',
  'DELETE /organization/{organizationId}/inviteMember/{inviteId}': 'ADMIN',
  // Custom roles say who may do what: only ADMINs, who manage members, write them.
  'POST /organization/{organizationId}/customRole': 'ADMIN',
  'PUT /organization/{organizationId}/customRole/{customRoleId}': 'ADMIN',
  'DELETE /organization/{organizationId}/customRole/{customRoleId}': 'ADMIN',
  // A kubeconfig is a credential to the cluster: only ADMINs read it back.
  'GET /organization/{organizationId}/cluster/{clusterId}/kubeconfig': 'ADMIN',
  // A cluster's deploy and stop change the cluster, not a deployment of services: WRITE, as its edits.
  'POST /organization/{organizationId}/cluster/{clusterId}/deploy': 'WRITE',
  'POST /organization/{organizationId}/cluster/{clusterId}/stop': 'WRITE',
  // A preview of a container's new tag is a deployment: what may deploy its environment may ask for it (docs/previews.md).
  'POST /organization/{organizationId}/container/preview': 'DEPLOY',
  // Taking, deleting and restoring a database's backup are deployment acts (docs/backups.md).
  'POST /database/{databaseId}/backup': 'DEPLOY',
  'DELETE /database/{databaseId}/backup/{backupId}': 'DEPLOY',
  'POST /database/{databaseId}/backup/{backupId}/restore': 'DEPLOY',
  // Cleaning a job's failed runs changes what the engine holds, as a stop does (docs/jobs.md).
  'POST /job/{jobId}/cleanFailedJob': 'DEPLOY',
  'POST /environment/{environmentId}/cleanFailedJobs': 'DEPLOY',
  // Webhooks: a target URL is often a credential (a Slack address), and attempts show what receivers answered (docs/webhooks.md).
  'GET /organization/{organizationId}/webhook': 'ADMIN',
  'POST /organization/{organizationId}/webhook': 'ADMIN',
  'GET /organization/{organizationId}/webhook/{webhookId}': 'ADMIN',
  'PUT /organization/{organizationId}/webhook/{webhookId}': 'ADMIN',
  'DELETE /organization/{organizationId}/webhook/{webhookId}': 'ADMIN',
  'GET /organization/{organizationId}/webhook/{webhookId}/event': 'ADMIN',
  'POST /organization/{organizationId}/webhook/{webhookId}/test': 'ADMIN',
  // Handing the organization to another member is an ADMIN's act (docs/organization-views.md).
  'POST /organization/{organizationId}/transferOwnership': 'ADMIN',
  // The audit log is for ADMINs to read (docs/audit-log.md).
  'GET /organization/{organizationId}/events': 'ADMIN',
  'GET /organization/{organizationId}/targets': 'ADMIN',
  // A backup destination holds the organization's store keys: ADMINs write it.
  'POST /organization/{organizationId}/backupDestination': 'ADMIN',
  'PUT /organization/{organizationId}/backupDestination/{backupDestinationId}': 'ADMIN',
  'DELETE /organization/{organizationId}/backupDestination/{backupDestinationId}': 'ADMIN',
  // An Argo CD's token and its destinations are the cluster's credentials: ADMINs write and check them (the reference's roles).
  'POST /cluster/{clusterId}/argoCdConfig': 'ADMIN',
  'DELETE /cluster/{clusterId}/argoCdConfig': 'ADMIN',
  'POST /cluster/{clusterId}/argoCdConfig/check': 'ADMIN',
  'POST /organization/{organizationId}/argoCdDestinationClusterMapping': 'ADMIN',
  'DELETE /organization/{organizationId}/argoCdDestinationClusterMapping': 'ADMIN',
  // Policy API tokens may grant the organization's ADMIN: only its ADMINs manage and read them (the reference: owner or admin).
  'GET /organization/{organizationId}/policyApiToken': 'ADMIN',
  'POST /organization/{organizationId}/policyApiToken': 'ADMIN',
  'DELETE /organization/{organizationId}/policyApiToken/{policyApiTokenId}': 'ADMIN',
  // The kubeconfig's token is a credential to the cluster, as the kubeconfig is (getClusterKubeconfig).
  'GET /cluster/{clusterId}/token': 'ADMIN',
}

/**
 * Routes the role and cross-organization checks cannot apply to; they still get the 401 check.
 * Keep it short: a route belongs here only when it has no organization to be in.
 */
const NO_ORGANIZATION = new Set([
  // The calling user's own account: API tokens have none, and there is nothing of another organization to reach.
  'GET /account',
  // The kinds of container registry the server takes: the same for every caller.
  'GET /availableContainerRegistry',
  // The kinds of helm repository the server takes: the same for every caller.
  'GET /availableHelmRepository',
  // The default advanced settings of each kind of service: the same for every caller.
  'GET /defaultApplicationAdvancedSettings',
  'GET /defaultContainerAdvancedSettings',
  'GET /defaultJobAdvancedSettings',
  'GET /defaultHelmAdvancedSettings',
  // The calling user's own account, edited: API tokens belong to no user (403), and nothing of another organization is reached.
  'PUT /account',
  // Accepting an invitation: only the invited user, with its own JWT, may (an API token gets 403; test/memberships.test.ts).
  'POST /organization/{organizationId}/inviteMember/{inviteId}',
])

const DEPLOY_ACTION = /\/(deploy|redeploy|stop|cancelDeployment|uninstall|restart-service|rollback)$/
const ORGANIZATION_MANAGEMENT = /^\/organization(\/\{organizationId\}(\/member(\/\{userId\})?)?)?$/

function requiredRole(route: Route): Role {
  const exception = ROLE_EXCEPTIONS[routeKey(route)]
  if (exception) return exception
  if (route.method === 'GET') return 'READ'
  if (DEPLOY_ACTION.test(route.template)) return 'DEPLOY'
  if (ORGANIZATION_MANAGEMENT.test(route.template)) return 'ADMIN'
  return 'WRITE'
}

const BELOW: Record<Role, Role[]> = { READ: [], DEPLOY: ['READ'], WRITE: ['READ', 'DEPLOY'], ADMIN: ['READ', 'DEPLOY', 'WRITE'] }

type Ids = Partial<Record<string, string>>

/** What a route acts on when it acts on everything in it (a deploy, a clone, a delete). */
const WHOLE_KINDS = new Set<Kind>(['organization', 'project', 'environment'])

/** The fields of a world besides its ids that a base body may read, and the kind each comes with. */
const FIELD_KINDS: Partial<Record<keyof World, Kind>> = {
  clusterOfEnvironment: 'environment',
  gitApiUrl: 'gitToken',
  gitSecret: 'gitToken',
  userSubject: 'user',
}

/** The kinds of the world a route's base body names, read by building it from a world that records what is read. */
function bodyKinds(route: Route): Kind[] {
  const base = BASE_BODIES[routeKey(route)]
  if (!base) return []
  const read = new Set<Kind>()
  const ids = new Proxy({} as Record<Kind, string>, {
    get: (_, kind) => {
      read.add(kind as Kind)
      return randomUUID()
    },
  })
  const world = new Proxy({} as World, {
    get: (_, field) => {
      if (field === 'ids') return ids
      const kind = FIELD_KINDS[field as keyof World]
      if (kind) read.add(kind)
      return `world-${String(field)}`
    },
  })
  base(world)
  return [...read]
}

describe('authorization at every route of the OpenAPI document', () => {
  let database: IsolatedDatabase
  let github: FakeProvider
  let t: TestApp
  let routes: Route[]
  /** Another organization, never changed: the sweep only ever tries to reach it. */
  let other: World
  let snapshot: () => Promise<Record<string, string>>
  /** The snapshot after the last refused request, while nothing else has written since; undefined once something may have. */
  let unchangedSince: Record<string, string> | undefined

  before(async () => {
    database = await createIsolatedDatabase()
    github = await startFakeProvider('github')
    github.repositories.set(FAKE_REPOSITORY, { defaultBranch: 'main', branches: [{ name: 'main', sha: 'a'.repeat(40) }] })
    t = await createTestApp({
      DATABASE_URL: database.url,
      BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
      BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
      BERTH_RATE_LIMIT_PER_ADDRESS: '0',
      BERTH_RATE_LIMIT_FAILED_AUTH: '0',
      BERTH_TOKEN_MINTS_PER_MINUTE: '0',
      // Custom domain checks ask a closed loopback port: refused at once, never the internet.
      BERTH_DOMAIN_CHECK_DNS_SERVERS: '127.0.0.1:9',
      BERTH_DOMAIN_CHECK_TIMEOUT_MS: '200',
    })
    routes = routesOf(t.app)
    other = await createWorld(t.app, t.db, github, ISSUER)
    snapshot = snapshotter(t.db)
  })
  after(async () => {
    await t?.close()
    await github?.close()
    await database?.drop()
  })

  /** The world's id of each path parameter, overridden by `ids`. */
  function idsOf(world: World, route: Route, ids: Ids = {}): Record<string, string> {
    return Object.fromEntries(route.pathParams.map((name) => [name, ids[name] ?? world.ids[paramKind(route.template, name) as Kind]]))
  }

  /** The route's URL with `params`; a query's `@kind` is `queryIds[kind]`, else the world's resource. */
  function url(route: Route, params: Record<string, string>, world: World, queryIds: Ids): string {
    let path = route.template
    for (const [name, value] of Object.entries(params)) path = path.replace(`{${name}}`, value)
    const query = (BASE_QUERIES[routeKey(route)] ?? [])
      .map(([key, value]) => `${key}=${queryIds[value.slice(1)] ?? queryValue(value, world)}`)
      .join('&')
    return query === '' ? path : `${path}?${query}`
  }

  /** The kinds of resources the route's query names (`@kind`). */
  const queryKinds = (route: Route) =>
    (BASE_QUERIES[routeKey(route)] ?? []).filter(([, value]) => value.startsWith('@')).map(([, value]) => value.slice(1) as Kind)

  /** Sends the route's valid request (its base body and query) to `params`, checking the answer's shape. */
  async function send(
    route: Route,
    world: World,
    params: Record<string, string>,
    authorization: string | undefined,
    queryIds: Ids = {},
  ): Promise<LightMyRequestResponse> {
    const base = BASE_BODIES[routeKey(route)]
    const text = TEXT_BODIES[routeKey(route)]
    const payload = base ? JSON.stringify(base(world)) : text?.text
    const headers: Record<string, string> = {
      ...(authorization ? { authorization } : {}),
      ...(payload ? { 'content-type': text?.contentType ?? 'application/json' } : {}),
    }
    const sent: Rendered = { method: route.method, url: url(route, params, world, queryIds), headers, payload, route, invalidUtf8: false }
    // A stream of events may go on as long as the deployment it follows: read a moment, then hang up.
    const res = route.streams ? await injectStream(t.app, sent) : await t.app.inject({ method: route.method, url: sent.url, headers, payload })
    checkAnswer(res, sent, world)
    return res
  }

  /** Runs a request that must be refused, and checks that it changed nothing. */
  async function refused(request: () => Promise<LightMyRequestResponse>): Promise<LightMyRequestResponse> {
    // Right after a refused request, the database is as the snapshot after it showed.
    const before = unchangedSince ?? (await snapshot())
    unchangedSince = undefined
    const res = await request()
    const after = await snapshot()
    assert.deepEqual(changedTables(before, after), [], `a refused request changed the database: ${res.statusCode} ${res.body}`)
    unchangedSince = after
    return res
  }

  const withoutRequestId = (res: LightMyRequestResponse) => {
    const { request_id: _, ...body } = res.json()
    return body
  }

  /** The query's resources another organization's, or random. */
  const theirQuery = (route: Route): [Ids, Ids] => [
    Object.fromEntries(queryKinds(route).map((kind) => [kind, other.ids[kind]])),
    Object.fromEntries(queryKinds(route).map((kind) => [kind, randomUUID()])),
  ]

  async function expectIndistinguishable(what: string, route: Route, world: World, real: Ids, random: Ids, queries: [Ids, Ids] = [{}, {}]) {
    const key = `${routeKey(route)} (${what})`
    const toReal = await refused(() => send(route, world, idsOf(world, route, real), world.authorization, queries[0]))
    const toRandom = await refused(() => send(route, world, idsOf(world, route, random), world.authorization, queries[1]))
    assert.equal(toReal.statusCode, 404, `${key}: ${toReal.statusCode} ${toReal.body}`)
    assert.equal(toRandom.statusCode, 404, `${key} with random ids: ${toRandom.statusCode} ${toRandom.body}`)
    assert.deepEqual(
      withoutRequestId(toReal),
      withoutRequestId(toRandom),
      `${key}: another organization's resource answers otherwise than a random id`,
    )
  }

  it('checks every documented route', async () => {
    assert.ok(routes.length >= 50, `only ${routes.length} operations in the document`)
    for (const key of [...Object.keys(ROLE_EXCEPTIONS), ...NO_ORGANIZATION]) {
      assert.ok(
        routes.some((route) => routeKey(route) === key),
        `${key} is listed in the sweep but not in the document`,
      )
    }
    const f = factories(t.db)
    // A world of its own for each route that writes (only what the route needs: kindsOf): the accepted
    // request at the end may change or delete it. Reads leave it as it was, so they share one whole
    // world, and its token for each role.
    let readWorld: World | undefined
    const readTokens = new Map<Role, Promise<string>>()
    const mint = async (world: World, role: Role) => (await f.apiToken(world.ids.organization, role)).authorization
    const tokenOf = (world: World, role: Role): Promise<string> => {
      if (world !== readWorld) return mint(world, role)
      const known = readTokens.get(role) ?? mint(world, role)
      readTokens.set(role, known)
      return known
    }
    /**
     * The kinds a write route's world is made with: what its path, query and base body name, what is
     * made from the resource it acts on (what refers to it: a service's deployment, a receiver's
     * rule), and what those are made from (worldKinds). A whole world for a route that acts on an
     * organization, a project or an environment itself (everything in it goes along), but for a POST
     * that adds to a collection the document also lists, and for the organization's git webhook secret.
     */
    const listed = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.template))
    const kindsOf = (route: Route): Set<Kind> | undefined => {
      const kinds = route.pathParams.map((name) => paramKind(route.template, name) as Kind)
      const acted = kinds.at(-1)
      const adds = route.method === 'POST' && listed.has(route.template)
      if (route.template.includes('gitWebhookSecret') || (acted && WHOLE_KINDS.has(acted) && !adds)) return undefined
      const referring = acted && !WHOLE_KINDS.has(acted) ? [...kindsMadeFrom(acted)] : []
      return worldKinds([...kinds, ...queryKinds(route), ...bodyKinds(route), ...referring])
    }
    for (const route of routes) {
      const key = routeKey(route)
      if (route.method === 'GET') readWorld ??= await createWorld(t.app, t.db, github, ISSUER)
      const world = route.method === 'GET' && readWorld ? readWorld : await createWorld(t.app, t.db, github, ISSUER, kindsOf(route))
      const params = idsOf(world, route)
      const needed = requiredRole(route)
      // A route of a service kind Berth does not serve yet answers 404 to every role: nothing of it exists.
      const unserved = route.pathParams.some((name) => UNSERVED_PARAMS.has(name))
      // The tokens of the roles below the required one, and of the required one, made before the
      // refused requests, so that nothing but them writes between their snapshots.
      const roles = NO_ORGANIZATION.has(key) || webhookProviderOf(route.template) || unserved ? [] : [...BELOW[needed], needed]
      const tokens = new Map(
        await Promise.all(roles.map(async (role) => [role, role === 'ADMIN' ? world.authorization : await tokenOf(world, role)] as const)),
      )
      const tokenFor = (role: Role) => {
        const token = tokens.get(role)
        assert.ok(token, `no ${role} token made for ${key}`)
        return token
      }
      unchangedSince = undefined

      const anonymous = await refused(() => send(route, world, params, undefined))
      assert.equal(anonymous.statusCode, 401, `${key} without credentials: ${anonymous.statusCode} ${anonymous.body}`)
      assert.equal(anonymous.json().code, 'unauthenticated')
      if (NO_ORGANIZATION.has(key)) continue
      // Git providers call the webhooks with a signature, not a role: test/git-webhooks.test.ts
      // checks them (forged, unsigned and another organization's signatures refused, changing nothing).
      if (webhookProviderOf(route.template)) continue

      for (const role of unserved ? [] : BELOW[needed]) {
        const authorization = tokenFor(role)
        const res = await refused(() => send(route, world, params, authorization))
        assert.equal(res.statusCode, 403, `${key} needs ${needed}, but ${role} got ${res.statusCode} ${res.body}`)
        assert.equal(res.json().code, 'forbidden')
      }

      // A kind word in the path (getIngressDeploymentStatus's serviceType) has no other organization's value: its own test covers it.
      if (route.pathParams.length > 0 && !route.pathParams.includes('serviceType')) {
        // Everything in the path (and what the query names) another organization's, or random.
        const theirs = Object.fromEntries(route.pathParams.map((name) => [name, other.ids[paramKind(route.template, name) as Kind]]))
        const random = Object.fromEntries(route.pathParams.map((name) => [name, randomUUID()]))
        await expectIndistinguishable('another organization', route, world, theirs, random, theirQuery(route))
        // The caller's own organization, with another organization's resource under it. (Users
        // belong to no organization: any ADMIN may add any user by id.)
        const [first, ...rest] = route.pathParams.filter((name) => name !== 'userId')
        if (first === 'organizationId' && rest.length > 0) {
          const theirsUnder = Object.fromEntries(rest.map((name) => [name, other.ids[paramKind(route.template, name) as Kind]]))
          const randomUnder = Object.fromEntries(rest.map((name) => [name, randomUUID()]))
          await expectIndistinguishable('own organization, their resource', route, world, theirsUnder, randomUnder, theirQuery(route))
        }
      }
      if (queryKinds(route).length > 0) {
        // Own path, another organization's resources in the query.
        await expectIndistinguishable('their resource in the query', route, world, {}, {}, theirQuery(route))
      }

      // The required role itself gets through (the derived table is not stricter than the route).
      if (unserved) continue
      unchangedSince = undefined
      const allowed = await send(route, world, params, tokenFor(needed))
      assert.ok(![401, 403, 404].includes(allowed.statusCode), `${key} with ${needed}: ${allowed.statusCode} ${allowed.body}`)
    }
  })
})
