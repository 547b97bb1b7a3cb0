/**
 * Hostile input for every route (issue 8): the routes of the served OpenAPI document, a world of
 * real resources for their path parameters, a description of one hostile request that renders to an
 * `app.inject` call, fast-check arbitraries for such requests, the checks every answer must pass,
 * and a snapshot of the database to show that a rejected write changed nothing.
 *
 * Requests are described symbolically (a fixture by kind, a 1 MiB string by its length) so that a
 * counterexample fast-check prints stays short and replays against whatever world exists then.
 */
import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { ERROR_STATUS } from '#src/platform/http/errors.ts'
import { createTestApp, type TestApp, testSecretBox } from './app.ts'
import { factories, uniqueName } from './factories.ts'
import { type FakeProvider, startFakeProvider } from './fake-git-providers.ts'
import { createIsolatedDatabase, type IsolatedDatabase } from './isolated-database.ts'
import { startOidcProvider, TEST_AUDIENCE, type TestIdentityProvider } from './oidc-provider.ts'

// ---------------------------------------------------------------------------------------------
// Routes, as the OpenAPI document serves them

export type JsonSchema = {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  enum?: unknown[]
  format?: string
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** The OpenAPI path template, such as `/environment/{environmentId}/deploy`. */
  template: string
  pathParams: string[]
  queryParams: { name: string; schema: JsonSchema }[]
  bodySchema: JsonSchema | undefined
  /** Whether its success is a stream of server-sent events, which ends only with what it follows. */
  streams: boolean
}

export const routeKey = (route: Pick<Route, 'method' | 'template'>) => `${route.method} ${route.template}`

interface Operation {
  parameters?: { in: string; name: string; schema?: JsonSchema }[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, { content?: Record<string, unknown> }>
}

/** Every operation of the served document (`/openapi.json`), in its order. */
export function routesOf(app: FastifyInstance): Route[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }
  const routes: Route[] = []
  for (const [template, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? []
      routes.push({
        method: method.toUpperCase() as Route['method'],
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        bodySchema: operation.requestBody?.content?.['application/json']?.schema,
        streams: operation.responses?.['200']?.content?.['text/event-stream'] !== undefined,
      })
    }
  }
  return routes
}

/** Each place in a body schema a value can go, as a path of keys (array items as index 0). */
export function schemaPaths(schema: JsonSchema | undefined, prefix: string[] = [], depth = 0): string[][] {
  if (!schema || depth > 6) return []
  const paths: string[][] = []
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) paths.push(...schemaPaths(alternative, prefix, depth + 1))
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    paths.push([...prefix, name])
    paths.push(...schemaPaths(property, [...prefix, name], depth + 1))
  }
  if (schema.items) {
    paths.push([...prefix, '0'])
    paths.push(...schemaPaths(schema.items, [...prefix, '0'], depth + 1))
  }
  const seen = new Set<string>()
  return paths.filter((path) => !seen.has(path.join('/')) && seen.add(path.join('/')))
}

// ---------------------------------------------------------------------------------------------
// The world: real resources for path parameters, and an ADMIN token to reach the handlers

export type Kind =
  | 'organization'
  | 'project'
  | 'environment'
  | 'helm'
  | 'database'
  | 'application'
  | 'helmRepository'
  | 'container'
  | 'job'
  | 'terraform'
  | 'containerRegistry'
  | 'gitToken'
  | 'apiToken'
  | 'user'
  | 'deploymentStage'
  | 'deploymentRequest'
  | 'variable'
  | 'secret'
  | 'environmentVariable'
  | 'environmentSecret'
  | 'containerVariable'
  | 'containerSecret'
  | 'applicationVariable'
  | 'applicationSecret'
  | 'jobVariable'
  | 'jobSecret'
  | 'applicationRestriction'
  | 'jobRestriction'
  | 'terraformRestriction'
  | 'helmRestriction'
  | 'applicationCustomDomain'
  | 'containerCustomDomain'
  | 'helmCustomDomain'
  | 'labelsGroup'
  | 'annotationsGroup'
  | 'invitation'
  | 'customRole'
  | 'cluster'
  | 'backup'
  | 'restore'
  | 'backupDestination'
  | 'gitopsApp'
  | 'webhook'
  | 'projectDeploymentRule'
  | 'alertReceiver'
  | 'alertRule'
  | 'onPremiseCredentials'
  | 'policyApiToken'

export const KINDS: Kind[] = [
  'organization',
  'project',
  'environment',
  'helm',
  'database',
  'application',
  'helmRepository',
  'container',
  'job',
  'terraform',
  'containerRegistry',
  'gitToken',
  'apiToken',
  'user',
  'deploymentStage',
  'deploymentRequest',
  'variable',
  'secret',
  'environmentVariable',
  'environmentSecret',
  'containerVariable',
  'containerSecret',
  'applicationVariable',
  'applicationSecret',
  'jobVariable',
  'jobSecret',
  'applicationRestriction',
  'jobRestriction',
  'terraformRestriction',
  'helmRestriction',
  'applicationCustomDomain',
  'containerCustomDomain',
  'helmCustomDomain',
  'labelsGroup',
  'annotationsGroup',
  'invitation',
  'customRole',
  'cluster',
  'backup',
  'restore',
  'backupDestination',
  'gitopsApp',
  'webhook',
  'projectDeploymentRule',
  'alertReceiver',
  'alertRule',
  'onPremiseCredentials',
  'policyApiToken',
]

/**
 * Routes whose base body is always refused by a rule: nothing lies above a project for its
 * variables to override; and a rollback needs a successful deployment, which a world without a
 * runner never has (its deployment stays queued).
 */
export const ALWAYS_REFUSED = new Set([
  'POST /project/{projectId}/environmentVariable/{environmentVariableId}/override',
  'POST /project/{projectId}/secret/{secretId}/override',
  ...[
    'environment/{environmentId}',
    'application/{applicationId}',
    'container/{containerId}',
    'database/{databaseId}',
    'job/{jobId}',
    'terraform/{terraformId}',
    'helm/{helmId}',
    'gitopsapp/{gitopsappId}',
  ].map((scope) => `POST /${scope}/rollback`),
  // Argo CD owns a GITOPS_APP: Berth creates, edits, clones and stops none (docs/argocd.md).
  'POST /environment/{environmentId}/gitopsapp',
  'PUT /gitopsapp/{gitopsappId}',
  'POST /gitopsapp/{gitopsappId}/clone',
  // The world's Argo CD cannot be reached: a save checks the connection first.
  'POST /cluster/{clusterId}/argoCdConfig',
  // The world's database runs in the simulator, which Berth takes no backup of, restores nothing into and schedules nothing for.
  'POST /database/{databaseId}/backup',
  'POST /database/{databaseId}/backup/{backupId}/restore',
  'PUT /database/{databaseId}/backupSchedule',
  // The checks before a deploy look for real: the world has no git server to fetch from, and its registry is ECR (its cloud's API).
  'POST /environment/{environmentId}/checkDockerfile',
  'POST /environment/{environmentId}/checkGitFile',
  'POST /environment/{environmentId}/checkHelmRepository',
  'POST /environment/{environmentId}/checkContainerImage',
  // A chart's default values are read from its repository for real: the world's git host does not resolve (400).
  'POST /environment/{environmentId}/helmDefaultValues',
  // Issue 48: the base repository's host does not resolve, so the clone fails (400 at url) ...
  'POST /organization/{organizationId}/listDirectoriesFromGitRepository',
  'POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo',
  'POST /organization/{organizationId}/listTfVarsFilesFromGitRepo',
  // ... and the world's container and job do not auto-deploy, so a new tag of their image deploys nothing (400 at image_name).
  'POST /organization/{organizationId}/container/deploy',
  'POST /organization/{organizationId}/job/deploy',
])

/** Variables and secrets: a route that takes one may take another (the generic API takes both). */
const VARIABLE_KINDS: Kind[] = [
  'variable',
  'secret',
  'environmentVariable',
  'environmentSecret',
  'containerVariable',
  'containerSecret',
  'applicationVariable',
  'applicationSecret',
  'jobVariable',
  'jobSecret',
]

/** Services of every kind: a parameter that takes any service (`serviceId`) takes each. */
const SERVICE_KINDS: Kind[] = ['helm', 'database', 'container', 'application', 'job', 'terraform', 'gitopsApp']
const ANY_SERVICE_PARAMS = new Set(['serviceId'])

/** Whether an id of kind `b` may name what a parameter (`param`) of kind `a` names, so that it is not "another kind". */
export const sameFamily = (a: Kind | undefined, b: Kind, param?: string) =>
  a === b ||
  (a !== undefined && VARIABLE_KINDS.includes(a) && VARIABLE_KINDS.includes(b)) ||
  (param !== undefined && ANY_SERVICE_PARAMS.has(param) && SERVICE_KINDS.includes(b))

/**
 * Path parameters of service kinds Berth does not serve yet (the per-scope variables APIs of
 * applications and jobs): no resource of theirs can exist, so they are given the world's helm
 * service, which such a route answers 404 for, as for any service of another kind.
 */
export const UNSERVED_PARAMS = new Set<string>([
  // getIngressDeploymentStatus's `/{serviceType}/{serviceId}/…`: a kind word, not a resource of a world (test/ingress-deployment-status.test.ts covers it).
  'serviceType',
])

export const PARAM_KIND: Record<string, Kind> = {
  organizationId: 'organization',
  projectId: 'project',
  environmentId: 'environment',
  helmId: 'helm',
  databaseId: 'database',
  helmRepositoryId: 'helmRepository',
  gitTokenId: 'gitToken',
  apiTokenId: 'apiToken',
  userId: 'user',
  // A service of any kind: the world's is a helm service.
  serviceId: 'helm',
  deploymentStageId: 'deploymentStage',
  // The stage another is moved next to.
  stageId: 'deploymentStage',
  deploymentRequestId: 'deploymentRequest',
  variableId: 'variable',
  environmentVariableId: 'variable',
  secretId: 'secret',
  applicationId: 'application',
  // An application removed from a database (removeApplicationFromDatabase).
  targetApplicationId: 'application',
  containerId: 'container',
  containerRegistryId: 'containerRegistry',
  jobId: 'job',
  terraformId: 'terraform',
  // A restriction of the route's kind (paramKind): the helm service's for helm routes.
  deploymentRestrictionId: 'helmRestriction',
  // Of the service the route names: paramKind picks the application's, container's or helm service's.
  customDomainId: 'applicationCustomDomain',
  labelsGroupId: 'labelsGroup',
  annotationsGroupId: 'annotationsGroup',
  inviteId: 'invitation',
  customRoleId: 'customRole',
  clusterId: 'cluster',
  // The world database's backup and restore (rows: its database runs in the simulator), and the organization's S3 destination.
  backupId: 'backup',
  restoreId: 'restore',
  backupDestinationId: 'backupDestination',
  webhookId: 'webhook',
  // An environment's deployment rule is named by its environment's id.
  deploymentRuleId: 'environment',
  alertReceiverId: 'alertReceiver',
  alertRuleId: 'alertRule',
  credentialsId: 'onPremiseCredentials',
  policyApiTokenId: 'policyApiToken',
  // The world's GITOPS_APP service, which getArgoCdApp names too.
  gitopsappId: 'gitopsApp',
  argocdAppId: 'gitopsApp',
}

/**
 * The world's resource for a path parameter of a route: a variable or secret of the scope the
 * route names (the project's, or the environment's), else the parameter's kind. An alias or an
 * override names the variable it points at, which lies above: the project's.
 */
export function paramKind(template: string, name: string): Kind | undefined {
  const pointsAbove = template.endsWith('/alias') || template.endsWith('/override')
  // A project's deployment rule (issue 48), not an environment's.
  if (name === 'deploymentRuleId' && template.startsWith('/project/')) return 'projectDeploymentRule'
  if ((name === 'environmentVariableId' || name === 'secretId') && template.startsWith('/environment/') && !pointsAbove) {
    return name === 'secretId' ? 'environmentSecret' : 'environmentVariable'
  }
  if ((name === 'environmentVariableId' || name === 'secretId') && template.startsWith('/container/') && !pointsAbove) {
    return name === 'secretId' ? 'containerSecret' : 'containerVariable'
  }
  if ((name === 'environmentVariableId' || name === 'secretId') && template.startsWith('/application/') && !pointsAbove) {
    return name === 'secretId' ? 'applicationSecret' : 'applicationVariable'
  }
  if ((name === 'environmentVariableId' || name === 'secretId') && template.startsWith('/job/') && !pointsAbove) {
    return name === 'secretId' ? 'jobSecret' : 'jobVariable'
  }
  if (name === 'deploymentRestrictionId') {
    if (template.startsWith('/terraform/')) return 'terraformRestriction'
    return template.startsWith('/application/') ? 'applicationRestriction' : template.startsWith('/job/') ? 'jobRestriction' : 'helmRestriction'
  }
  // A custom domain of the service the route names (application, container or helm).
  if (name === 'customDomainId') return `${template.split('/')[1]}CustomDomain` as Kind
  return PARAM_KIND[name]
}

export interface World {
  /**
   * One resource of each kind (a random id, naming nothing, for a kind the world was made without:
   * createWorld's `kinds`), all in one organization; `apiToken` is a spare READ token, not the
   * caller's; `deploymentStage` is the helm service's stage, `deploymentRequest` a deployment of
   * the environment, queued (the harness runs no runner); `variable` and `secret` are the
   * project's, `environmentVariable` and `environmentSecret` the environment's, `containerVariable`
   * and `containerSecret` the container's.
   */
  ids: Record<Kind, string>
  adminTokenId: string
  /** The ADMIN API token of the organization, as `Token …`. */
  authorization: string
  /** The secret of that token, which no answer may contain. */
  secret: string
  /** The fake GitHub that the git token leads to, and the git token's secret there. */
  gitApiUrl: string
  gitSecret: string
  /** The OpenID Connect issuer and the JWT subject of `ids.user`, a WRITE member of the organization. */
  issuer: string
  userSubject: string
  /** The organization's git webhook secret, which signs deliveries to the webhook routes (`webhookProviderOf`). */
  webhookSecret: string
  /** The cluster of the world's environment (the organization's default one), which deployment rules may name. */
  clusterOfEnvironment: string
}

// ---------------------------------------------------------------------------------------------
// Git webhooks: routes a git provider calls, signed with the organization's webhook secret

export type WebhookProvider = 'github' | 'gitlab' | 'bitbucket'

/** The provider a route receives deliveries from, or undefined for a route API clients call. */
export const webhookProviderOf = (template: string): WebhookProvider | undefined =>
  /\/gitWebhook\/(github|gitlab|bitbucket)$/.exec(template)?.[1] as WebhookProvider | undefined

/** Where each provider puts its proof, its event and its delivery id. */
const WEBHOOK_HEADERS: Record<WebhookProvider, { signature: string; event: [string, string]; delivery: string }> = {
  github: { signature: 'x-hub-signature-256', event: ['x-github-event', 'push'], delivery: 'x-github-delivery' },
  gitlab: { signature: 'x-gitlab-token', event: ['x-gitlab-event', 'Push Hook'], delivery: 'x-gitlab-event-uuid' },
  bitbucket: { signature: 'x-hub-signature', event: ['x-event-key', 'repo:push'], delivery: 'x-request-uuid' },
}

/** The proof a provider sends with `payload`, made with `secret`. */
export function webhookSignature(provider: WebhookProvider, secret: string, payload: string | Buffer | undefined): string {
  if (provider === 'gitlab') return secret
  return `sha256=${createHmac('sha256', secret)
    .update(payload ?? '')
    .digest('hex')}`
}

/**
 * A webhook route's credential is the provider's signature, not an Authorization header: the
 * caller's `auth` becomes the signature (a valid one for the ADMIN token, the header's text for a
 * raw header, a spoiled one for a mangled token, none for none), with an event and a fresh delivery id.
 */
function signDelivery(provider: WebhookProvider, headers: Record<string, string>, payload: string | Buffer | undefined, world: World): void {
  const { signature, event, delivery } = WEBHOOK_HEADERS[provider]
  const authorization = headers.authorization
  delete headers.authorization
  headers[event[0]] ??= event[1]
  headers[delivery] ??= randomUUID()
  if (authorization === undefined) return
  const valid = webhookSignature(provider, world.webhookSecret, payload)
  if (authorization === world.authorization) headers[signature] = valid
  // A near miss: the last digit changed. Not `mangle(…, 'flip')`, whose 'A' for a final 'a' is the
  // same hex digit (signatures are compared ignoring case): one delivery in 16 verified.
  else if (authorization.startsWith('Token ') && authorization.length === world.authorization.length)
    headers[signature] = `${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`
  else headers[signature] = authorization
}

/** The organization's webhook secret now, made when it has none (a request of the sweep may have rotated or removed it). */
export async function currentWebhookSecret(app: FastifyInstance, world: World): Promise<string> {
  const url = `/organization/${world.ids.organization}/gitWebhookSecret`
  const headers = { authorization: world.authorization }
  const shown = await app.inject({ method: 'GET', url, headers })
  assert.equal(shown.statusCode, 200, shown.body)
  if (shown.json().secret) return shown.json().secret
  const made = await app.inject({ method: 'POST', url, headers })
  assert.equal(made.statusCode, 201, made.body)
  return made.json().secret
}

/** A repository the fake GitHub serves, for branch listings that go all the way. */
export const FAKE_REPOSITORY = 'acme/app'

/** An organization webhook's request; nothing is ever delivered in the sweeps (no runner). */
const webhookBody = () => ({
  kind: 'STANDARD',
  target_url: 'https://hooks.world.example.com/berth',
  target_secret: 'world-webhook-secret',
  events: ['DEPLOYMENT_SUCCESSFUL'],
})

/** An S3 backup destination's request; the store is never called by the routes the sweeps send it to. */
// An e-mail receiver: creating, editing and validating it calls out to nothing the sweep does not control
// (its smarthost is a name that does not resolve).
const alertReceiverBody = (organizationId: string) => ({
  organization_id: organizationId,
  name: uniqueName('receiver'),
  description: 'base',
  type: 'EMAIL',
  send_resolved: true,
  to: 'oncall@example.com',
  from: 'berth@example.com',
  smarthost: 'smtp.invalid:25',
  auth_password: '',
  require_tls: false,
})
const alertRuleBody = (organizationId: string, clusterId: string, containerId: string, receiverId: string) => ({
  organization_id: organizationId,
  cluster_id: clusterId,
  name: uniqueName('rule'),
  description: 'base',
  tag: 'base',
  condition: { kind: 'CUSTOM', promql: 'container_memory_working_set_bytes > 50e6' },
  for_duration: 'PT1M',
  severity: 'LOW',
  presentation: {},
  enabled: true,
  alert_receiver_ids: [receiverId],
  target: { target_type: 'CONTAINER', target_id: containerId },
})

const backupDestinationBody = () => ({
  name: uniqueName('store'),
  kind: 'S3',
  endpoint: 'https://s3.world.example.com',
  region: 'eu-west-3',
  bucket: 'world-backups',
  access_key_id: 'AKIAWORLD',
  secret_access_key: `s3-${randomUUID()}`,
})

/** Where the worlds' Argo CD is: a closed loopback port (BERTH_ALLOW_PRIVATE_URLS is on in the sweeps), so nothing answers. */
export const WORLD_ARGOCD_URL = 'http://127.0.0.1:9'
const WORLD_DESTINATION = 'https://kubernetes.default.svc'

/**
 * The world's GITOPS_APP service, as the Argo CD poller would have left it once its Argo CD stopped
 * answering (docs/argocd.md): the cluster's credentials (status error), the destination mapped to
 * the cluster, the application (status unknown) and its service, in an environment of its own (on
 * the default cluster, so that deleteCluster still succeeds) so that the world environment's
 * actions do not include it. Polls of it then write nothing.
 */
async function worldGitOpsApp(db: Db, organizationId: string, projectId: string, clusterId: string, environmentClusterId: string): Promise<string> {
  const sealed = testSecretBox().seal(`argocd-${randomUUID()}`)
  const { rows } = await sql<{ credentialsId: string }>`
    insert into argocd_credentials (organization_id, cluster_id, argocd_url, token_sealed, private_allowed, status, last_checked_at)
    values (${organizationId}, ${clusterId}, ${WORLD_ARGOCD_URL}, ${sealed}, true, 'error', now())
    returning id as "credentialsId"`.execute(db)
  const credentialsId = rows[0]!.credentialsId
  await sql`
    insert into argocd_destination_mappings (organization_id, agent_cluster_id, argocd_cluster_url, cluster_id)
    values (${organizationId}, ${clusterId}, ${WORLD_DESTINATION}, ${clusterId})`.execute(db)
  const environment = await sql<{ id: string }>`
    insert into environments (organization_id, project_id, cluster_id, name, mode)
    values (${organizationId}, ${projectId}, ${environmentClusterId}, ${uniqueName('argocd')}, 'STAGING') returning id`.execute(db)
  const environmentId = environment.rows[0]!.id
  const stage = await sql<{ id: string }>`
    insert into deployment_stages (organization_id, environment_id, name, position)
    values (${organizationId}, ${environmentId}, 'GITOPS_APP DEFAULT', 1) returning id`.execute(db)
  const configuration = JSON.stringify({ application: 'world', namespace: 'world', credentials_id: credentialsId })
  const service = await sql<{ id: string }>`
    insert into services (organization_id, environment_id, kind, name, deployment_stage_id, configuration)
    values (${organizationId}, ${environmentId}, 'GITOPS_APP', 'world', ${stage.rows[0]!.id}, ${configuration}::jsonb) returning id`.execute(db)
  const serviceId = service.rows[0]!.id
  await sql`
    insert into argocd_apps (organization_id, credentials_id, name, destination_server, destination_namespace, service_id, sync_status, health_status, revision, reachable)
    values (${organizationId}, ${credentialsId}, 'world', ${WORLD_DESTINATION}, 'world', ${serviceId}, 'Synced', 'Healthy', ${'a'.repeat(40)}, false)`.execute(
    db,
  )
  return serviceId
}

/**
 * A DONE backup of the world's database in the data dir's directory (no file: deleting it deletes
 * nothing), a restore of it and a schedule, as rows: the world's database runs in the simulator, which Berth
 * takes no backup of.
 */
async function worldBackup(db: Db, organizationId: string, databaseId: string) {
  const { rows } = await sql<{ backupId: string }>`
    insert into database_backups (organization_id, service_id, engine, name, message, origin, status, object_key, size_bytes, sha256, created_by, ended_at)
    values (${organizationId}, ${databaseId}, 'POSTGRESQL', 'world', '', 'MANUAL', 'DONE', ${`${organizationId}/${databaseId}/world.pgdump.gz`}, 1, ${'0'.repeat(64)}, 'world', now())
    returning id as "backupId"`.execute(db)
  const backupId = rows[0]!.backupId
  const restore = await sql<{ restoreId: string }>`
    insert into database_restores (organization_id, service_id, backup_id, backup_name, source_service_id, status, created_by)
    values (${organizationId}, ${databaseId}, ${backupId}, 'world', ${databaseId}, 'DONE', 'world')
    returning id as "restoreId"`.execute(db)
  await sql`
    insert into database_backup_schedules (service_id, organization_id, cron, timezone, keep_count, next_fire_at)
    values (${databaseId}, ${organizationId}, '0 3 * * *', 'Etc/UTC', 7, now() + interval '1 day')
    on conflict (service_id) do nothing`.execute(db)
  return { backupId, restoreId: restore.rows[0]!.restoreId }
}

/**
 * What each kind of the world is made under or from. A world made for some kinds (createWorld's
 * `kinds`, closed over this by `worldKinds`) holds them and what they need, and nothing else.
 */
const MADE_FROM: Record<Kind, Kind[]> = {
  organization: [],
  apiToken: [],
  project: [],
  environment: ['project'],
  helmRepository: [],
  helm: ['environment', 'helmRepository'],
  database: ['environment'],
  cluster: [],
  containerRegistry: [],
  container: ['environment', 'containerRegistry'],
  job: ['environment', 'containerRegistry'],
  gitToken: [],
  application: ['environment', 'gitToken'],
  terraform: ['environment', 'gitToken'],
  user: [],
  deploymentStage: ['helm'],
  // A deployment of the environment with the services a whole world's holds when it is queued.
  deploymentRequest: ['helm', 'database', 'container', 'job', 'application'],
  variable: ['project'],
  secret: ['project'],
  environmentVariable: ['environment'],
  environmentSecret: ['environment'],
  containerVariable: ['container'],
  containerSecret: ['container'],
  applicationVariable: ['application'],
  applicationSecret: ['application'],
  jobVariable: ['job'],
  jobSecret: ['job'],
  applicationRestriction: ['application'],
  jobRestriction: ['job'],
  terraformRestriction: ['terraform'],
  helmRestriction: ['helm'],
  applicationCustomDomain: ['application'],
  containerCustomDomain: ['container'],
  helmCustomDomain: ['helm'],
  labelsGroup: [],
  annotationsGroup: [],
  invitation: [],
  customRole: [],
  backup: ['database'],
  restore: ['backup'],
  backupDestination: [],
  webhook: [],
  // It names the environment's cluster.
  projectDeploymentRule: ['environment'],
  alertReceiver: [],
  alertRule: ['cluster', 'container', 'alertReceiver'],
  onPremiseCredentials: [],
  policyApiToken: [],
  gitopsApp: ['project', 'cluster', 'environment'],
}

/** The kinds and everything they are made from (the organization always). */
export function worldKinds(kinds: Iterable<Kind>): Set<Kind> {
  const closed = new Set<Kind>(['organization'])
  const add = (kind: Kind) => {
    if (closed.has(kind)) return
    closed.add(kind)
    for (const from of MADE_FROM[kind]) add(from)
  }
  for (const kind of kinds) add(kind)
  return closed
}

/** Made in the order a whole world was made one at a time: these came after the environment's deployment was queued. */
const AFTER_DEPLOYMENT = new Set<Kind>([
  'terraform',
  'variable',
  'secret',
  'environmentVariable',
  'environmentSecret',
  'containerVariable',
  'containerSecret',
  'applicationVariable',
  'applicationSecret',
  'jobVariable',
  'jobSecret',
  'applicationRestriction',
  'jobRestriction',
  'terraformRestriction',
  'helmRestriction',
  'applicationCustomDomain',
  'containerCustomDomain',
  'helmCustomDomain',
  'backup',
  'restore',
  'alertReceiver',
  'alertRule',
  'gitopsApp',
  'backupDestination',
  'webhook',
  'labelsGroup',
  'annotationsGroup',
  'invitation',
  'customRole',
  'projectDeploymentRule',
])

const factoriesOf = new WeakMap<Db, ReturnType<typeof factories>>()

/**
 * A world in a new organization: every kind (`kinds` undefined), or only `kinds` and what they are
 * made from (worldKinds); a kind not made has a random id, which names nothing.
 */
export async function createWorld(app: FastifyInstance, db: Db, github: FakeProvider, issuer: string, kinds?: Iterable<Kind>): Promise<World> {
  const f = factoriesOf.get(db) ?? factories(db)
  factoriesOf.set(db, f)
  const organization = await f.organization()
  const admin = await f.apiToken(organization.id, 'ADMIN')
  const world: World = {
    ids: { organization: organization.id } as Record<Kind, string>,
    adminTokenId: admin.id,
    clusterOfEnvironment: '',
    authorization: admin.authorization,
    secret: admin.token,
    gitApiUrl: github.url,
    gitSecret: `ghp_${randomUUID().replaceAll('-', '')}`,
    issuer,
    userSubject: `member-${randomUUID()}`,
    webhookSecret: '',
  }
  const whole = kinds === undefined
  const made = whole ? new Set(KINDS) : worldKinds(kinds)
  made.delete('organization')
  await Promise.all([
    makeInto(app, db, github, world, made),
    // The organization's git webhook secret, which signs deliveries to the git webhook routes: a whole world's.
    whole &&
      (async () => {
        const res = await app.inject({
          method: 'POST',
          url: `/organization/${organization.id}/gitWebhookSecret`,
          headers: { authorization: admin.authorization },
        })
        assert.equal(res.statusCode, 201, res.body)
        world.webhookSecret = res.json().secret
      })(),
  ])
  for (const kind of KINDS) world.ids[kind] ??= randomUUID()
  return world
}

/**
 * Makes the kinds of `make` anew in the world's organization (with its ADMIN token), writing their
 * ids into `world`; what they are made from and is not in `make` is the world's already. Resources
 * that do not depend on each other are made at the same time; the services of the environment one
 * after the other, and what a whole world made after queuing the environment's deployment after it.
 */
async function makeInto(app: FastifyInstance, db: Db, github: FakeProvider, world: World, make: Set<Kind>): Promise<void> {
  const f = factoriesOf.get(db) ?? factories(db)
  factoriesOf.set(db, f)
  const organizationId = world.ids.organization
  const headers = { authorization: world.authorization }
  const created = async (url: string, payload: Record<string, unknown>): Promise<string> => {
    const res = await app.inject({ method: 'POST', url, headers, payload })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().id
  }
  // The environment's services one after the other, as they were made (each takes its kind's stage).
  let services: Promise<unknown> = Promise.resolve()
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = services.then(work)
    services = next.catch(() => undefined)
    return next
  }
  /** After the kind when it is made too: the order a whole world was made in. */
  const after = async (kind: Kind) => {
    if (make.has(kind)) await id(kind)
  }
  const variable = (scope: 'PROJECT' | 'ENVIRONMENT' | 'CONTAINER' | 'APPLICATION' | 'JOB', parent: Kind, isSecret: boolean) => async () =>
    created('/variable', {
      key: `WORLD_${randomUUID().slice(0, 8).toUpperCase()}`,
      value: 'v',
      is_secret: isSecret,
      variable_scope: scope,
      variable_parent_id: await id(parent),
    })
  const restriction = (segment: 'application' | 'job' | 'helm' | 'terraform') => async () =>
    created(`/${segment}/${await id(segment)}/deploymentRestriction`, { mode: 'EXCLUDE', type: 'PATH', value: 'docs/' })
  const customDomain = (segment: 'application' | 'container' | 'helm') => async () =>
    created(`/${segment}/${await id(segment)}/customDomain`, {
      domain: `${randomUUID().slice(0, 8)}.world.example.com`,
      generate_certificate: true,
    })
  const organizationUrl = `/organization/${organizationId}`
  let backupOf: Promise<{ backupId: string; restoreId: string }> | undefined
  const backup = () => {
    backupOf ??= id('database').then((databaseId) => worldBackup(db, organizationId, databaseId))
    return backupOf
  }
  const makers: Record<Kind, () => Promise<string>> = {
    organization: async () => assert.fail('a world is made in an organization of its own'),
    apiToken: async () => (await f.apiToken(organizationId, 'READ')).id,
    project: async () => (await f.project(organizationId)).id,
    environment: async () => {
      const environment = await f.environment(await id('project'))
      world.clusterOfEnvironment = environment.clusterId
      return environment.id
    },
    helmRepository: async () => (await f.helmRepository(organizationId)).id,
    helm: async () => {
      const [environmentId, repository] = await Promise.all([id('environment'), id('helmRepository')])
      return oneAtATime(
        async () =>
          (
            await f.helmService(environmentId, {
              source: { helm_repository: { repository, chart_name: 'app', chart_version: '1.0.0' } },
            })
          ).id,
      )
    },
    database: async () => {
      const environmentId = await id('environment')
      await after('helm')
      return oneAtATime(async () => (await f.database(environmentId)).id)
    },
    // A cluster no environment uses, so that deleteCluster succeeds for the roles that may.
    cluster: async () =>
      (
        await f.cluster(
          organizationId,
          { executor: 'KUBERNETES', kubernetes: 'SELF_MANAGED' },
          'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://127.0.0.1:1" }\n',
        )
      ).id,
    // An ECR registry: its image listing needs AWS's API, so getContainerVersions answers 400 at once, calling nothing.
    containerRegistry: async () =>
      (
        await f.containerRegistry(organizationId, {
          kind: 'ECR',
          url: 'https://123456789012.dkr.ecr.eu-west-3.amazonaws.com',
          config: { region: 'eu-west-3', accessKeyId: 'AKIAWORLD' },
          secrets: { secretAccessKey: `aws-${randomUUID()}` },
        })
      ).id,
    container: async () => {
      const [environmentId, registryId] = await Promise.all([id('environment'), id('containerRegistry')])
      await after('database')
      return oneAtATime(async () => (await f.containerService(environmentId, { registry_id: registryId })).id)
    },
    job: async () => {
      const [environmentId, registryId] = await Promise.all([id('environment'), id('containerRegistry')])
      await after('container')
      return oneAtATime(
        async () => (await f.job(environmentId, { source: { image: { image_name: 'busybox', tag: '1.36', registry_id: registryId } } })).id,
      )
    },
    gitToken: async () => {
      github.tokens.add(world.gitSecret)
      return (await f.gitToken(organizationId, { type: 'GITHUB', token: world.gitSecret, gitApiUrl: github.url })).id
    },
    application: async () => {
      const [environmentId, gitTokenId] = await Promise.all([id('environment'), id('gitToken')])
      await after('job')
      return oneAtATime(() => created(`/environment/${environmentId}/application`, { ...applicationBody(gitTokenId), name: uniqueName('app') }))
    },
    terraform: async () => {
      const [environmentId, gitTokenId] = await Promise.all([id('environment'), id('gitToken')])
      return oneAtATime(() => created(`/environment/${environmentId}/terraform`, terraformBody(gitTokenId)))
    },
    user: async () => {
      // A subject of its own: a member removed may leave its user behind.
      world.userSubject = `member-${randomUUID()}`
      const user = await db
        .insertInto('users')
        .values({ issuer: world.issuer, subject: world.userSubject, name: uniqueName('user'), email: null })
        .returning('id')
        .executeTakeFirstOrThrow()
      await db.insertInto('organizationMembers').values({ organizationId, userId: user.id, role: 'WRITE' }).execute()
      return user.id
    },
    deploymentStage: async () => {
      const helmId = await id('helm')
      const { deploymentStageId } = await db.selectFrom('services').select('deploymentStageId').where('id', '=', helmId).executeTakeFirstOrThrow()
      return deploymentStageId
    },
    deploymentRequest: async () => {
      const environmentId = await id('environment')
      await Promise.all(MADE_FROM.deploymentRequest.map(id))
      return oneAtATime(async () => {
        const queued = await app.inject({ method: 'POST', url: `/environment/${environmentId}/deploy`, headers })
        assert.equal(queued.statusCode, 202, queued.body)
        return queued.json().execution_id as string
      })
    },
    variable: variable('PROJECT', 'project', false),
    secret: variable('PROJECT', 'project', true),
    environmentVariable: variable('ENVIRONMENT', 'environment', false),
    environmentSecret: variable('ENVIRONMENT', 'environment', true),
    containerVariable: variable('CONTAINER', 'container', false),
    containerSecret: variable('CONTAINER', 'container', true),
    applicationVariable: variable('APPLICATION', 'application', false),
    applicationSecret: variable('APPLICATION', 'application', true),
    jobVariable: variable('JOB', 'job', false),
    jobSecret: variable('JOB', 'job', true),
    applicationRestriction: restriction('application'),
    jobRestriction: restriction('job'),
    terraformRestriction: restriction('terraform'),
    helmRestriction: restriction('helm'),
    applicationCustomDomain: customDomain('application'),
    containerCustomDomain: customDomain('container'),
    helmCustomDomain: customDomain('helm'),
    backup: async () => (await backup()).backupId,
    restore: async () => (await backup()).restoreId,
    alertReceiver: () => created('/alert-receivers', alertReceiverBody(organizationId)),
    alertRule: async () => {
      const [clusterId, containerId, receiverId] = await Promise.all([id('cluster'), id('container'), id('alertReceiver')])
      return created('/alert-rules', alertRuleBody(organizationId, clusterId, containerId, receiverId))
    },
    gitopsApp: async () => {
      const [projectId, clusterId] = await Promise.all([id('project'), id('cluster'), id('environment')])
      return worldGitOpsApp(db, organizationId, projectId, clusterId, world.clusterOfEnvironment)
    },
    backupDestination: () => created(`${organizationUrl}/backupDestination`, backupDestinationBody()),
    webhook: () => created(`${organizationUrl}/webhook`, webhookBody()),
    labelsGroup: () => created(`${organizationUrl}/labelsGroups`, labelsGroupBody()),
    annotationsGroup: () => created(`${organizationUrl}/annotationsGroups`, annotationsGroupBody()),
    invitation: () => created(`${organizationUrl}/inviteMember`, invitationBody()),
    customRole: () => created(`${organizationUrl}/customRole`, { name: uniqueName('role') }),
    onPremiseCredentials: () => created(`${organizationUrl}/onPremise/credentials`, { name: uniqueName('rack') }),
    policyApiToken: () => created(`${organizationUrl}/policyApiToken`, { name: uniqueName('agent'), opa_policy: 'allow := true' }),
    projectDeploymentRule: async () => {
      const [projectId] = await Promise.all([id('project'), id('environment')])
      return created(`/project/${projectId}/deploymentRule`, projectDeploymentRuleBody(world.clusterOfEnvironment))
    },
  }
  const ids = new Map<Kind, Promise<string>>()
  function id(kind: Kind): Promise<string> {
    let made = ids.get(kind)
    if (!made) {
      if (!make.has(kind)) {
        const known = world.ids[kind]
        assert.ok(known, `the world is made without ${kind}, which another kind is made from`)
        return Promise.resolve(known)
      }
      const queued = AFTER_DEPLOYMENT.has(kind) && make.has('deploymentRequest') ? id('deploymentRequest') : Promise.resolve('')
      made = queued.then(makers[kind])
      ids.set(kind, made)
    }
    return made
  }
  const kinds = [...make]
  const made = await Promise.all(kinds.map(id))
  for (const [i, kind] of kinds.entries()) world.ids[kind] = made[i]!
}

/** Where each kind's row is, to tell whether a request removed it. */
const KIND_TABLES: Record<Exclude<Kind, 'user'>, string> = {
  organization: 'organizations',
  apiToken: 'api_tokens',
  project: 'projects',
  environment: 'environments',
  helm: 'services',
  database: 'services',
  application: 'services',
  container: 'services',
  job: 'services',
  terraform: 'services',
  gitopsApp: 'services',
  helmRepository: 'helm_repositories',
  containerRegistry: 'container_registries',
  gitToken: 'git_tokens',
  cluster: 'clusters',
  deploymentStage: 'deployment_stages',
  deploymentRequest: 'deployment_requests',
  variable: 'variables',
  secret: 'variables',
  environmentVariable: 'variables',
  environmentSecret: 'variables',
  containerVariable: 'variables',
  containerSecret: 'variables',
  applicationVariable: 'variables',
  applicationSecret: 'variables',
  jobVariable: 'variables',
  jobSecret: 'variables',
  applicationRestriction: 'deployment_restrictions',
  jobRestriction: 'deployment_restrictions',
  terraformRestriction: 'deployment_restrictions',
  helmRestriction: 'deployment_restrictions',
  applicationCustomDomain: 'custom_domains',
  containerCustomDomain: 'custom_domains',
  helmCustomDomain: 'custom_domains',
  labelsGroup: 'organization_groups',
  annotationsGroup: 'organization_groups',
  invitation: 'member_invitations',
  customRole: 'custom_roles',
  backup: 'database_backups',
  restore: 'database_restores',
  backupDestination: 'backup_destinations',
  webhook: 'organization_webhooks',
  projectDeploymentRule: 'project_deployment_rules',
  alertReceiver: 'alert_receivers',
  alertRule: 'alert_rules',
  onPremiseCredentials: 'on_premise_credentials',
  policyApiToken: 'api_tokens',
}

/** The kinds of the world whose resource is gone (the member: its membership), with the ADMIN token as `admin`. */
async function worldMissing(db: Db, world: World): Promise<Set<Kind | 'admin'>> {
  const { ids } = world
  const checks = [
    sql`select 'admin' as kind where not exists (select 1 from api_tokens where id = ${world.adminTokenId})`,
    sql`select 'user' as kind where not exists (select 1 from organization_members where organization_id = ${ids.organization} and user_id = ${ids.user})`,
    // A project or an environment being deleted takes nothing new (the world's deletes never run: no runner).
    sql`select 'project' as kind where exists (select 1 from projects where id = ${ids.project} and deleting_at is not null)`,
    sql`select 'environment' as kind where exists (select 1 from environment_deletions where environment_id = ${ids.environment})`,
    ...Object.entries(KIND_TABLES).map(
      ([kind, table]) => sql`select ${kind} as kind where not exists (select 1 from ${sql.table(table)} where id = ${ids[kind as Kind]})`,
    ),
  ]
  const { rows } = await sql<{ kind: Kind | 'admin' }>`${sql.join(checks, sql` union all `)}`.execute(db)
  return new Set(rows.map((row) => row.kind))
}

/** The kinds and everything made from them, which a removed resource takes along, or leaves pointing at nothing. */
export function kindsMadeFrom(...kinds: Kind[]): Set<Kind> {
  const again = new Set(kinds)
  for (let grew = true; grew; ) {
    grew = false
    for (const kind of KINDS) {
      if (!again.has(kind) && MADE_FROM[kind].some((from) => again.has(from))) {
        again.add(kind)
        grew = true
      }
    }
  }
  return again
}

/**
 * The world with what a request removed made again: what is gone and everything made from it (a
 * new world when its organization or ADMIN token is gone); the world itself when nothing is.
 */
async function repairWorld(app: FastifyInstance, db: Db, github: FakeProvider, world: World): Promise<World> {
  const missing = await worldMissing(db, world)
  if (missing.size === 0) return world
  if (missing.has('admin') || missing.has('organization')) return createWorld(app, db, github, world.issuer)
  const repaired: World = { ...world, ids: { ...world.ids } }
  const again = kindsMadeFrom(...(missing as Set<Kind>))
  // The GITOPS_APP's Argo CD credentials are its cluster's, one per cluster: made again on a new cluster.
  await makeInto(app, db, github, repaired, again.has('gitopsApp') ? kindsMadeFrom(...again, 'cluster') : again)
  return repaired
}

// ---------------------------------------------------------------------------------------------
// Database snapshots

/** Columns that change without any request writing them: the token-usage flusher's. */
export const VOLATILE_COLUMNS = new Set(['last_used_at'])
/** Bookkeeping that no request touches. */
const IGNORED_TABLES = new Set(['berth_migrations', 'berth_migrations_lock'])

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/
/** Where the change-counting triggers write: one row per changed row, kept by its transaction's fate. */
const CHANGE_LOG = 'test_row_changes'

/** The tables of the public schema but the migrations' bookkeeping and the change log. */
async function tableNames(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`.execute(db)
  const names = rows.map((row) => row.name).filter((name) => !IGNORED_TABLES.has(name) && name !== CHANGE_LOG)
  for (const name of names) assert.match(name, IDENTIFIER)
  return names
}

/** Table name → how many row changes it has seen (a count, as text). */
export type Snapshot = Record<string, string>

/**
 * Puts a trigger on every table of the public schema but the migrations' bookkeeping that logs
 * each row inserted, deleted or updated (an update that leaves all but volatile columns as they
 * were is no change), and each truncate. The log is written in the changing transaction, so a
 * write rolled back leaves no trace, and it is only ever appended to: no lock on a shared counter
 * orders concurrent requests. Reading it costs little however large the tables grow, where hashing
 * every table cost a sweep minutes.
 */
async function installChangeLog(db: Db): Promise<string[]> {
  const names = await tableNames(db)
  assert.ok(names.length > 0, 'no table to snapshot')
  const volatile = [...VOLATILE_COLUMNS].map((column) => `'${column}'`).join(', ')
  const statements = [
    `create table if not exists ${CHANGE_LOG} (id bigserial primary key, table_name text not null)`,
    `create or replace function test_log_row_change() returns trigger language plpgsql as $$
     begin
       if tg_op = 'UPDATE' then
         if (to_jsonb(new) - tg_argv) = (to_jsonb(old) - tg_argv) then return null; end if;
       end if;
       insert into ${CHANGE_LOG} (table_name) values (tg_table_name);
       return null;
     end $$`,
    ...names.flatMap((name) => [
      `create or replace trigger test_log_row_change after insert or update or delete on "${name}" for each row execute function test_log_row_change(${volatile})`,
      `create or replace trigger test_log_truncate after truncate on "${name}" for each statement execute function test_log_row_change()`,
    ]),
  ]
  for (const statement of statements) await sql.raw(statement).execute(db)
  return names
}

/**
 * Counts the changes of every table of the public schema but the migrations' bookkeeping (volatile
 * columns aside). Each call reads only the log's rows added since the last one, so a snapshot costs
 * the same at the sweep's end as at its start (counting the whole log each time grew with every
 * world the sweep made). A row a transaction still holds when it is read past is not counted later:
 * the sweeps' requests are awaited one by one, so no write of theirs is in flight at a snapshot.
 */
export function snapshotter(db: Db): () => Promise<Snapshot> {
  let tables: Promise<string[]> | undefined
  const counted = new Map<string, number>()
  let seen = '0'
  return async () => {
    tables ??= installChangeLog(db)
    const names = await tables
    const { rows } = await sql<{ name: string; changes: number; last: string }>`
      select table_name as name, count(*)::int as changes, max(id)::text as last from ${sql.table(CHANGE_LOG)}
      where id > ${seen}::bigint group by table_name`.execute(db)
    for (const row of rows) {
      counted.set(row.name, (counted.get(row.name) ?? 0) + row.changes)
      if (BigInt(row.last) > BigInt(seen)) seen = row.last
    }
    return Object.fromEntries(names.map((name) => [name, String(counted.get(name) ?? 0)]))
  }
}

export const changedTables = (before: Snapshot, after: Snapshot) =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((table) => before[table] !== after[table]).sort()

// ---------------------------------------------------------------------------------------------
// A hostile request, described symbolically

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS' | 'HEAD'

export const WRITE_METHODS = new Set<string>(['POST', 'PUT', 'DELETE', 'PATCH'])

/** A path parameter: the world's resource of its kind, one of another kind, a random uuid, or raw URL text. */
export type Param = { real: true } | { other: Kind } | { uuid: string } | { raw: string }

/** A JSON value: plain, raw JSON text (1e309), a long string, deep nesting, or bytes that are not UTF-8. */
export type Leaf =
  | { json: unknown }
  | { raw: string }
  | { long: number; char: string }
  | { deep: number; open: '[' | '{'; leaf: string; closed: boolean }
  | { bytes: number[] }

export type Mutation = { set: string[]; value: Leaf } | { remove: string[] } | { key: string; at: string[]; value: Leaf }

export type Body =
  | { none: true }
  /** The route's valid body with these changes. */
  | { base: Mutation[]; contentType?: string }
  | { value: Leaf; contentType?: string }
  | { text: string; contentType?: string }

/**
 * The caller: the world's ADMIN token, none, a raw Authorization header, the ADMIN token spoiled, or
 * a Bearer JWT that the issuer signed with these claims over valid defaults (`sub: '@member'` is the
 * world's member user).
 */
export type Auth =
  | { admin: true }
  | { none: true }
  | { header: string }
  | { mangled: 'suffix' | 'truncate' | 'flip' | 'upper' | 'spaces' }
  | { forged: Record<string, unknown> }

export interface HostileRequest {
  method: Method
  /** A route key (`GET /project/{projectId}`) or, for an unknown route, a raw path. */
  route: string
  params: Record<string, Param>
  /** Raw query pairs, already percent-encoded as they should go on the wire; a null value sends the key alone. */
  query: [string, string | null][]
  auth: Auth
  headers: Record<string, string>
  body: Body
}

export interface Rendered {
  method: Method
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
  /** Route key when the request targets a documented route. */
  route: Route | undefined
  /** Whether the payload is JSON-typed and not valid UTF-8. */
  invalidUtf8: boolean
}

const quote = (text: string) => JSON.stringify(text)

/** JSON text of `value`, emitting own `__proto__` keys as any other; bytes leaves become markers. */
function jsonText(value: unknown, bytes: number[][]): string {
  if (isLeaf(value)) return leafText(value, bytes)
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item, bytes)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((key) => `${quote(key)}:${jsonText((value as Record<string, unknown>)[key], bytes)}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const LEAF = Symbol('leaf')
const isLeaf = (value: unknown): value is Leaf => value !== null && typeof value === 'object' && LEAF in value
const asLeaf = (leaf: Leaf): Leaf => Object.defineProperty({ ...leaf }, LEAF, { value: true, enumerable: false })

const MARK = (i: number) => `\uE000${i}\uE001`

function leafText(leaf: Leaf, bytes: number[][]): string {
  if ('json' in leaf) return jsonText(leaf.json, bytes)
  if ('raw' in leaf) return leaf.raw
  if ('long' in leaf) return `"${quote(leaf.char).slice(1, -1).repeat(leaf.long)}"`
  if ('deep' in leaf) {
    const open = leaf.open === '[' ? '[' : '{"a":'
    const close = leaf.open === '[' ? ']' : '}'
    return `${open.repeat(leaf.deep)}${leaf.leaf}${leaf.closed ? close.repeat(leaf.deep) : ''}`
  }
  bytes.push(leaf.bytes)
  return `"a${MARK(bytes.length - 1)}b"`
}

/** The JSON text as bytes, with each marker replaced by its (invalid) bytes. */
function payloadOf(text: string, bytes: number[][]): string | Buffer {
  if (bytes.length === 0) return text
  const parts = text.split(/\uE000(\d+)\uE001/)
  return Buffer.concat(parts.map((part, i) => (i % 2 === 1 ? Buffer.from(bytes[Number(part)]!) : Buffer.from(part, 'utf8'))))
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** Applies one mutation to a (cloned) body, making intermediate objects as needed. */
function mutate(body: Record<string, unknown>, mutation: Mutation): void {
  const path = 'set' in mutation ? mutation.set : 'remove' in mutation ? mutation.remove : mutation.at
  const parentPath = 'key' in mutation ? path : path.slice(0, -1)
  let target: Record<string, unknown> = body
  for (const key of parentPath) {
    const next = Object.hasOwn(target, key) ? target[key] : undefined
    if (next === null || typeof next !== 'object' || isLeaf(next)) {
      const made = {}
      setOwn(target, key, made)
      target = made
    } else target = next as Record<string, unknown>
  }
  if ('remove' in mutation) {
    const key = mutation.remove.at(-1)!
    if (Array.isArray(target)) target.splice(Number(key), 1)
    else delete target[key]
  } else if ('set' in mutation) setOwn(target, mutation.set.at(-1)!, asLeaf(mutation.value))
  else setOwn(target, mutation.key, asLeaf(mutation.value))
}

/** The valid body of each documented operation that takes one: one change away from being accepted. */
/** Valid bodies of the write routes that take no JSON, with their content type. */
export const TEXT_BODIES: Record<string, { contentType: string; text: string }> = {
  'PUT /organization/{organizationId}/cluster/{clusterId}/kubeconfig': {
    contentType: 'application/x-yaml',
    text: 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: { server: "https://203.0.114.10:6443" }\n',
  },
}

export const BASE_BODIES: Record<string, (world: World) => Record<string, unknown>> = {
  'POST /alert-receivers': (w) => alertReceiverBody(w.ids.organization),
  'PUT /alert-receivers/{alertReceiverId}': (w) => {
    const { organization_id: _, ...edit } = alertReceiverBody(w.ids.organization)
    return edit
  },
  'POST /alert-receivers/validate': (w) => ({ alert_receiver: alertReceiverBody(w.ids.organization), message: 'base' }),
  'POST /alert-receivers/{alertReceiverId}/validate': () => ({ message: 'base' }),
  'POST /alert-rules': (w) => alertRuleBody(w.ids.organization, w.ids.cluster, w.ids.container, w.ids.alertReceiver),
  'PUT /alert-rules/{alertRuleId}': (w) => {
    const {
      organization_id: _o,
      cluster_id: _c,
      target: _t,
      ...edit
    } = alertRuleBody(w.ids.organization, w.ids.cluster, w.ids.container, w.ids.alertReceiver)
    return edit
  },
  'POST /organization/{organizationId}/labelsGroups': () => labelsGroupBody(),
  'PUT /organization/{organizationId}/labelsGroups/{labelsGroupId}': () => labelsGroupBody(),
  'POST /organization/{organizationId}/annotationsGroups': () => annotationsGroupBody(),
  'PUT /organization/{organizationId}/annotationsGroups/{annotationsGroupId}': () => annotationsGroupBody(),
  'POST /organization/{organizationId}/inviteMember': () => invitationBody(),
  'POST /organization/{organizationId}/customRole': () => ({ name: uniqueName('role'), description: 'base' }),
  'PUT /organization/{organizationId}/customRole/{customRoleId}': (w) => ({
    name: uniqueName('role'),
    cluster_permissions: [],
    project_permissions: [{ project_id: w.ids.project, permissions: [{ environment_type: 'DEVELOPMENT', permission: 'DEPLOYER' }] }],
  }),
  'POST /organization': () => ({ name: uniqueName('org'), plan: 'FREE' }),
  'POST /application/{applicationId}/customDomain': () => ({ domain: `${randomUUID().slice(0, 8)}.base.example.com`, generate_certificate: true }),
  'PUT /application/{applicationId}/customDomain/{customDomainId}': () => ({
    domain: `${randomUUID().slice(0, 8)}.base.example.com`,
    generate_certificate: false,
    use_cdn: true,
  }),
  'POST /container/{containerId}/customDomain': () => ({ domain: `${randomUUID().slice(0, 8)}.base.example.com`, generate_certificate: true }),
  'PUT /container/{containerId}/customDomain/{customDomainId}': () => ({
    domain: `${randomUUID().slice(0, 8)}.base.example.com`,
    generate_certificate: false,
    use_cdn: true,
  }),
  'POST /helm/{helmId}/customDomain': () => ({ domain: `${randomUUID().slice(0, 8)}.base.example.com`, generate_certificate: true }),
  'PUT /helm/{helmId}/customDomain/{customDomainId}': () => ({
    domain: `${randomUUID().slice(0, 8)}.base.example.com`,
    generate_certificate: false,
    use_cdn: true,
  }),
  'PUT /organization/{organizationId}': () => ({ name: uniqueName('org'), description: 'renamed' }),
  'PUT /organization/{organizationId}/member': (w) => ({ user_id: w.ids.user, role: 'WRITE' }),
  'DELETE /organization/{organizationId}/member': (w) => ({ user_id: w.ids.user }),
  'PUT /organization/{organizationId}/member/{userId}': () => ({ role: 'WRITE' }),
  'POST /organization/{organizationId}/apiToken': () => ({ name: uniqueName('token'), role: 'READ' }),
  'POST /organization/{organizationId}/project': () => ({ name: uniqueName('project'), description: null }),
  'PUT /project/{projectId}': () => ({ name: uniqueName('project') }),
  'POST /project/{projectId}/environment': () => ({ name: uniqueName('env'), mode: 'STAGING' }),
  'PUT /environment/{environmentId}': () => ({ name: uniqueName('env') }),
  'POST /organization/{organizationId}/gitToken': (w) => ({ name: uniqueName('git'), type: 'GITHUB', token: w.gitSecret, git_api_url: w.gitApiUrl }),
  'PUT /organization/{organizationId}/gitToken/{gitTokenId}': (w) => ({
    name: uniqueName('git'),
    type: 'GITHUB',
    token: w.gitSecret,
    git_api_url: w.gitApiUrl,
  }),
  'POST /organization/{organizationId}/helmRepository': () => helmRepositoryBody(),
  // Issue 48: projects' deployment rules, clusters' locks, checks before a deploy (the checks look at a repository no one serves: a 400 saying so).
  'POST /project/{projectId}/deploymentRule': (w) => projectDeploymentRuleBody(w.clusterOfEnvironment),
  'PUT /project/{projectId}/deploymentRule/{deploymentRuleId}': (w) => projectDeploymentRuleBody(w.clusterOfEnvironment),
  'PUT /project/{projectId}/deploymentRule/order': () => ({ project_deployment_rule_ids_in_order: [] }),
  'POST /cluster/{clusterId}/lock': () => ({ reason: 'sweep', ttl_in_days: 1 }),
  'POST /environment/{environmentId}/checkDockerfile': (w) => ({ git_repository: checkRepository(w), dockerfile_path: 'Dockerfile' }),
  'POST /environment/{environmentId}/checkGitFile': (w) => ({ git_repository: checkRepository(w), files: ['README.md'] }),
  'POST /environment/{environmentId}/checkHelmRepository': (w) => ({ git_repository: checkRepository(w) }),
  'POST /environment/{environmentId}/cleanFailedJobs': (w) => ({ job_ids: [w.ids.job] }),
  'POST /environment/{environmentId}/helmDefaultValues': (w) => ({ source: { git_repository: checkRepository(w) } }),
  'POST /environment/{environmentId}/checkContainerImage': (w) => ({ registry_id: w.ids.containerRegistry, image_name: 'app', tag: '1' }),
  'PUT /organization/{organizationId}/helmRepository/{helmRepositoryId}': () => helmRepositoryBody(),
  'POST /database/{databaseId}/backup': () => ({ name: uniqueName('backup'), message: 'base' }),
  'POST /database/{databaseId}/backup/{backupId}/restore': () => ({}),
  'PUT /database/{databaseId}/backupSchedule': () => ({ cron: '0 3 * * *', timezone: 'Europe/Paris', keep_count: 7 }),
  'POST /organization/{organizationId}/backupDestination': () => backupDestinationBody(),
  'POST /organization/{organizationId}/webhook': () => webhookBody(),
  'PUT /organization/{organizationId}/webhook/{webhookId}': () => webhookBody(),
  'PUT /organization/{organizationId}/backupDestination/{backupDestinationId}': () => backupDestinationBody(),
  'POST /organization/{organizationId}/containerRegistry': () => containerRegistryBody(),
  'PUT /organization/{organizationId}/containerRegistry/{containerRegistryId}': () => containerRegistryBody(),
  'POST /organization/{organizationId}/cluster': () => clusterBody(),
  'PUT /organization/{organizationId}/cluster/{clusterId}': () => clusterBody(),
  'PUT /organization/{organizationId}/cluster/{clusterId}/advancedSettings': () => ({
    'loki.log_retention_in_week': 4,
    'database.postgresql.allowed_cidrs': ['10.0.0.0/8'],
  }),
  'PUT /organization/{organizationId}/cluster/{clusterId}/routingTable': () => ({
    routes: [{ destination: '10.1.0.0/16', target: 'pcx-0123', description: 'made by the sweep' }],
  }),
  'POST /organization/{organizationId}/cluster/{clusterId}/cloudProviderInfo': () => ({
    cloud_provider: 'AWS',
    region: 'eu-west-3',
    credentials: { id: '7b0a3b7e-3a54-4f56-9a2b-6f0f5b3f9d11', name: 'aws' },
  }),
  'POST /environment/{environmentId}/container': (w) => containerBody(w),
  'PUT /container/{containerId}': (w) => containerBody(w),
  'POST /container/{containerId}/deploy': () => ({ image_tag: '1.0.1' }),
  'POST /container/{containerId}/uninstall': () => ({}),
  'POST /environment/{environmentId}/helm': (w) => helmBody(w),
  'PUT /helm/{helmId}': (w) => helmBody(w),
  'POST /environment/{environmentId}/cancelDeployment': () => ({ force_cancel: false }),
  'POST /helm/{helmId}/deploy': () => ({ chart_version: '1.0.1' }),
  'POST /helm/{helmId}/uninstall': () => ({}),
  'POST /environment/{environmentId}/database': () => ({ name: uniqueName('database'), type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' }),
  // A partial edit: it leaves the version and the storage alone, which may only go up.
  'PUT /database/{databaseId}': () => ({ name: uniqueName('database'), cpu: 500 }),
  'POST /database/{databaseId}/deploy': () => ({}),
  'POST /database/{databaseId}/uninstall': () => ({}),
  'POST /environment/{environmentId}/application': (w) => ({ ...applicationBody(w.ids.gitToken), name: uniqueName('app') }),
  'PUT /application/{applicationId}': (w) => ({ ...applicationBody(w.ids.gitToken), name: uniqueName('app') }),
  'POST /application/{applicationId}/deploy': () => ({ git_commit_id: 'a'.repeat(40) }),
  'POST /application/{applicationId}/uninstall': () => ({}),
  'POST /environment/{environmentId}/job': (w) => jobBody(w),
  'PUT /job/{jobId}': (w) => jobBody(w),
  'POST /job/{jobId}/deploy': () => ({ image_tag: '1.37' }),
  'POST /job/{jobId}/uninstall': () => ({}),
  'POST /environment/{environmentId}/terraform': (w) => terraformBody(w.ids.gitToken),
  'PUT /terraform/{terraformId}': (w) => terraformBody(w.ids.gitToken),
  'POST /terraform/{terraformId}/deploy': () => ({ action: 'PLAN' }),
  'POST /terraform/{terraformId}/uninstall': () => ({}),
  'PUT /terraform/{terraformId}/advancedSettings': () => ({ 'build.timeout_max_sec': 900 }),
  'POST /terraform/{terraformId}/clone': (w) => ({ name: uniqueName('infra'), environment_id: w.ids.environment }),
  'PUT /job/{jobId}/advancedSettings': () => ({ 'job.delete_ttl_seconds_after_finished': 60, 'cronjob.concurrency_policy': 'Forbid' }),
  'PUT /application/{applicationId}/advancedSettings': () => ({ 'build.timeout_max_sec': 600, 'network.ingress.enable_cors': true }),
  'PUT /container/{containerId}/advancedSettings': () => ({
    'deployment.termination_grace_period_seconds': 30,
    'hpa.memory.average_utilization_percent': null,
  }),
  'PUT /helm/{helmId}/advancedSettings': () => ({ 'network.ingress.proxy_body_size_mb': 200, 'network.gateway_api.retry.retry_on': 'reset' }),
  ...restrictionBodies(),
  ...rollbackBodies(),
  'POST /environment/{environmentId}/deploymentStage': () => ({ name: uniqueName('stage'), description: 'made by the sweep' }),
  'PUT /deploymentStage/{deploymentStageId}': () => ({ name: uniqueName('stage'), description: null }),
  'PUT /deploymentStage/{deploymentStageId}/service/{serviceId}': () => ({ is_skipped: false }),
  'POST /environment/{environmentId}/service/deploy': (w) => ({ helms: [{ id: w.ids.helm, chart_version: '1.0.1' }] }),
  'POST /environment/{environmentId}/service/restart-service': (w) => ({ helm_ids: [w.ids.helm] }),
  'POST /environment/{environmentId}/service/stop': (w) => ({ helm_ids: [w.ids.helm] }),
  'POST /environment/{environmentId}/service/uninstall': (w) => ({ helm_ids: [w.ids.helm] }),
  'POST /environment/{environmentId}/service/delete': (w) => ({ helm_ids: [w.ids.helm] }),
  'POST /deploymentQueue/{deploymentRequestId}/cancelDeployment': () => ({}),
  'POST /variable': (w) => ({ key: variableKey(), value: 'v', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: w.ids.project }),
  'PUT /variable/{variableId}': () => ({ key: variableKey(), value: 'edited' }),
  'POST /variable/{variableId}/alias': (w) => ({ key: variableKey(), alias_scope: 'PROJECT', alias_parent_id: w.ids.project }),
  'POST /variable/{variableId}/override': (w) => ({ value: 'o', override_scope: 'ENVIRONMENT', override_parent_id: w.ids.environment }),
  'POST /variable/import': () => importBody('HELM'),
  ...scopedVariableBodies(),
  'POST /environment/{environmentId}/clone': () => ({ name: uniqueName('env'), apply_deployment_rule: false }),
  'POST /organization/{organizationId}/container/preview': () => ({ image_name: 'busybox', tag: '9.9' }),
  'PUT /environment/{environmentId}/deploymentRule/{deploymentRuleId}': () => ({
    auto_preview: false,
    timezone: 'UTC',
    start_time: '1970-01-01T08:00:00.000Z',
    stop_time: '1970-01-01T19:00:00.000Z',
    weekdays: ['MONDAY'],
  }),
  'POST /application/{applicationId}/clone': (w) => ({ name: uniqueName('app'), environment_id: w.ids.environment }),
  'POST /container/{containerId}/clone': (w) => ({ name: uniqueName('container'), environment_id: w.ids.environment }),
  'POST /database/{databaseId}/clone': (w) => ({ name: uniqueName('database'), environment_id: w.ids.environment }),
  'POST /helm/{helmId}/clone': (w) => ({ name: uniqueName('helm'), environment_id: w.ids.environment }),
  'POST /job/{jobId}/clone': (w) => ({ name: uniqueName('job'), environment_id: w.ids.environment }),
  'POST /cluster/{clusterId}/argoCdConfig': () => ({ argocd_url: WORLD_ARGOCD_URL, argocd_token: 'argocd-world-token' }),
  'POST /cluster/{clusterId}/argoCdConfig/check': () => ({ argocd_url: WORLD_ARGOCD_URL, argocd_token: 'argocd-world-token' }),
  'POST /organization/{organizationId}/argoCdDestinationClusterMapping': (w) => ({
    agent_cluster_id: w.ids.cluster,
    argocd_cluster_url: WORLD_DESTINATION,
    cluster_id: w.ids.cluster,
  }),
  'POST /environment/{environmentId}/gitopsapp': () => ({ name: uniqueName('gitops') }),
  'PUT /gitopsapp/{gitopsappId}': () => ({ name: uniqueName('gitops') }),
  'POST /gitopsapp/{gitopsappId}/deploy': () => ({ revision: 'main' }),
  'POST /gitopsapp/{gitopsappId}/uninstall': () => ({}),
  'POST /gitopsapp/{gitopsappId}/clone': (w) => ({ name: uniqueName('gitops'), environment_id: w.ids.environment }),
  // Issue 48's views: a repository on a host that does not resolve (the clone fails at once, 400), and the rest.
  'POST /organization/{organizationId}/listDirectoriesFromGitRepository': () => unreachableRepository(),
  'POST /organization/{organizationId}/parseTerraformVariablesFromGitRepo': () => ({ git_repository: unreachableRepository() }),
  'POST /organization/{organizationId}/listTfVarsFilesFromGitRepo': () => ({
    git_repository: unreachableRepository(),
    mode: { type: 'AutoDiscover' },
  }),
  'POST /organization/{organizationId}/onboarding': () => ({ status: 'COMPLETED' }),
  'POST /organization/{organizationId}/transferOwnership': (w) => ({ user_id: w.ids.user }),
  'POST /organization/{organizationId}/container/deploy': () => ({ image_name: 'acme/web', tag: '9.9' }),
  'POST /organization/{organizationId}/job/deploy': () => ({ image_name: 'busybox', tag: '9.9' }),
  'PUT /application/{applicationId}/network': () => ({ sticky_session: true }),
  'PUT /container/{containerId}/network': () => ({ sticky_session: true }),
  'PUT /account': () => ({ communication_email: 'sweep@example.com' }),
  // Issue 48: on-premise credentials, clusters' DNS provider, policy API tokens.
  'POST /organization/{organizationId}/onPremise/credentials': () => ({ name: uniqueName('rack') }),
  'PUT /organization/{organizationId}/onPremise/credentials/{credentialsId}': () => ({ name: uniqueName('rack') }),
  'PUT /cluster/{clusterId}/dnsProvider': () => ({ dns_provider: { provider: 'QOVERY', domain: 'sweep.example.com' } }),
  'POST /organization/{organizationId}/policyApiToken': () => ({ name: uniqueName('agent'), opa_policy: 'allow if input.method == "GET"' }),
}

const unreachableRepository = () => ({ url: 'https://git.invalid/acme/infra', branch: 'main' })

/** The query of operations that need one; `@kind` stands for the world's resource of that kind (`@gitToken`: its git token). */
export const BASE_QUERIES: Record<string, [string, string][]> = {
  'GET /cluster/{clusterId}/logs': [
    ['endpoint', 'query_range'],
    ['query', encodeURIComponent('{component="cluster"}')],
  ],
  'GET /cluster/{clusterId}/metrics': [
    ['endpoint', 'api/v1/query'],
    ['query', 'up'],
  ],
  'GET /organization/{organizationId}/account/github/repository/branch': [
    ['name', encodeURIComponent(FAKE_REPOSITORY)],
    ['gitTokenId', '@gitToken'],
  ],
  'GET /organization/{organizationId}/account/gitlab/repository/branch': [['name', encodeURIComponent(FAKE_REPOSITORY)]],
  'GET /organization/{organizationId}/account/bitbucket/repository/branch': [['name', encodeURIComponent(FAKE_REPOSITORY)]],
  'GET /variable': [
    ['scope', 'PROJECT'],
    ['parent_id', '@project'],
  ],
  'POST /variable/import': [
    ['service_id', '@helm'],
    ['service_type', 'HELM'],
  ],
  'DELETE /organization/{organizationId}/argoCdDestinationClusterMapping': [
    ['agentClusterId', '@cluster'],
    ['argocdClusterUrl', encodeURIComponent(WORLD_DESTINATION)],
  ],
  'GET /cluster/{clusterId}/events': [
    ['from_date_time', '2026-01-01T00:00:00Z'],
    ['to_date_time', '2026-01-02T00:00:00Z'],
  ],
}

/** A base query value as sent: `@kind` stands for the world's resource of that kind. */
export const queryValue = (value: string, world: World) => (value.startsWith('@') ? world.ids[value.slice(1) as Kind] : value)

/** A variable key no other test uses. */
const variableKey = () => `K_${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`

const importBody = (scope: string) => ({ overwrite: false, vars: [{ name: variableKey(), value: 'v', scope, is_secret: false }] })

/** The bodies of the deployment restriction APIs of applications, jobs and helm services: a value no other restriction has. */
function restrictionBodies(): Record<string, (world: World) => Record<string, unknown>> {
  const bodies: Record<string, (world: World) => Record<string, unknown>> = {}
  const body = () => ({ mode: 'MATCH', type: 'PATH', value: `src/${randomUUID().slice(0, 8)}/` })
  for (const [segment, param] of [
    ['application', 'applicationId'],
    ['job', 'jobId'],
    ['terraform', 'terraformId'],
    ['helm', 'helmId'],
  ]) {
    bodies[`POST /${segment}/{${param}}/deploymentRestriction`] = body
    bodies[`PUT /${segment}/{${param}}/deploymentRestriction/{deploymentRestrictionId}`] = body
  }
  return bodies
}

/** The bodies of the rollbacks (a Berth extension) of environments and every kind: the world's queued deployment, never a successful one. */
function rollbackBodies(): Record<string, (world: World) => Record<string, unknown>> {
  const bodies: Record<string, (world: World) => Record<string, unknown>> = {}
  const body = (w: World) => ({ execution_id: w.ids.deploymentRequest })
  for (const [segment, param] of [
    ['environment', 'environmentId'],
    ['application', 'applicationId'],
    ['container', 'containerId'],
    ['database', 'databaseId'],
    ['job', 'jobId'],
    ['terraform', 'terraformId'],
    ['helm', 'helmId'],
    ['gitopsapp', 'gitopsappId'],
  ]) {
    bodies[`POST /${segment}/{${param}}/rollback`] = body
  }
  return bodies
}

/** The bodies of the per-scope variables APIs: project, environment, application, container, job; variables and secrets. */
function scopedVariableBodies(): Record<string, (world: World) => Record<string, unknown>> {
  const bodies: Record<string, (world: World) => Record<string, unknown>> = {}
  const scopes: [string, string][] = [
    ['project', 'projectId'],
    ['environment', 'environmentId'],
    ['application', 'applicationId'],
    ['container', 'containerId'],
    ['job', 'jobId'],
  ]
  for (const [segment, param] of scopes) {
    const families: [string, string][] = [
      ['environmentVariable', 'environmentVariableId'],
      ['secret', 'secretId'],
    ]
    for (const [family, idParam] of families) {
      const base = `/${segment}/{${param}}/${family}`
      bodies[`POST ${base}`] = () => ({ key: variableKey(), value: 'v' })
      bodies[`PUT ${base}/{${idParam}}`] = () => ({ key: variableKey(), value: 'edited' })
      bodies[`POST ${base}/{${idParam}}/override`] = () => ({ value: 'o' })
      bodies[`POST ${base}/{${idParam}}/alias`] = () => ({ key: variableKey() })
    }
    if (!['project', 'environment'].includes(segment)) {
      bodies[`POST /${segment}/{${param}}/environmentVariable/import`] = () => importBody(segment.toUpperCase())
    }
  }
  return bodies
}

const projectDeploymentRuleBody = (clusterId: string) => ({
  name: uniqueName('rule'),
  mode: 'DEVELOPMENT',
  cluster_id: clusterId,
  auto_stop: false,
  timezone: 'UTC',
  start_time: '1970-01-01T08:00:00.000Z',
  stop_time: '1970-01-01T19:00:00.000Z',
  weekdays: ['MONDAY'],
  wildcard: 'sweep-never-*',
})

const checkRepository = (w: World) => ({ url: `https://github.com/${FAKE_REPOSITORY}`, branch: 'main', root_path: '/', git_token_id: w.ids.gitToken })

const helmRepositoryBody = () => ({
  name: uniqueName('helm repo'),
  kind: 'HTTPS',
  url: 'https://charts.example.com',
  skip_tls_verification: false,
  config: { username: 'u', password: 'p' },
})

const clusterBody = () => ({ name: uniqueName('cluster'), region: 'lab', cloud_provider: 'ON_PREMISE', kubernetes: 'SELF_MANAGED' })

// A kind whose images Berth does not list: getContainerVersions never calls out, whatever a sweep edited.
const containerRegistryBody = () => ({
  name: uniqueName('registry'),
  kind: 'ECR',
  url: 'https://123456789012.dkr.ecr.eu-west-3.amazonaws.com',
  config: { region: 'eu-west-3', access_key_id: 'AKIAWORLD', secret_access_key: 's' },
})

const containerBody = (w: World) => ({
  name: uniqueName('container'),
  registry_id: w.ids.containerRegistry,
  image_name: 'acme/web',
  tag: '1.0.0',
  arguments: ['--port', '8080'],
  ports: [{ internal_port: 8080, publicly_accessible: true }],
  healthchecks: {},
})

/** An application of the fake GitHub's repository, read with the world's git token. */
const applicationBody = (gitTokenId: string) => ({
  git_repository: { url: `https://github.com/${FAKE_REPOSITORY}`, branch: 'main', git_token_id: gitTokenId },
  healthchecks: { readiness_probe: { type: { http: { path: '/', port: 8080 } } } },
  ports: [{ internal_port: 8080, publicly_accessible: true }],
  cpu: 250,
  memory: 256,
})

/** An IAC service of the fake GitHub's repository, read with the world's git token. */
const terraformBody = (gitTokenId: string) => ({
  name: uniqueName('infra'),
  description: 'made by the sweep',
  auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
  terraform_files_source: { git_repository: { url: `https://github.com/${FAKE_REPOSITORY}`, branch: 'main', git_token_id: gitTokenId } },
  terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'region', value: 'eu-west-3', secret: false }] },
  backend: { kubernetes: {} },
  engine: 'OPEN_TOFU',
  provider_version: { explicit_version: '1.9.4' },
  job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
})

const helmBody = (w: World) => ({
  name: uniqueName('helm'),
  auto_deploy: false,
  timeout_sec: 600,
  source: { helm_repository: { repository: w.ids.helmRepository, chart_name: 'app', chart_version: '1.0.0' } },
  arguments: [],
  values_override: { set: [['replicas', '2']] },
})

const jobBody = (w: World) => ({
  name: uniqueName('job'),
  healthchecks: {},
  source: { image: { image_name: 'busybox', tag: '1.36', registry_id: w.ids.containerRegistry } },
  schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['backup'] } },
})

/** Percent-encodes every byte of the UTF-8 of `text` but unreserved ones (lone surrogates become U+FFFD). */
export function encodeBytes(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** An `app.inject` call for the request in this world. */
export function render(request: HostileRequest, world: World, routes: Map<string, Route>): Rendered {
  const route = routes.get(request.route)
  let path = route ? route.template : request.route
  if (route) {
    for (const name of route.pathParams) {
      const param = request.params[name] ?? { real: true }
      const kind = paramKind(route.template, name)
      const text =
        'real' in param
          ? kind
            ? world.ids[kind]
            : randomUUID()
          : 'other' in param
            ? world.ids[param.other]
            : 'uuid' in param
              ? param.uuid
              : param.raw
      path = path.replace(`{${name}}`, text)
    }
  }
  const query = request.query.map(([key, value]) => (value === null ? key : `${key}=${queryValue(value, world)}`)).join('&')
  const url = query === '' ? path : `${path}?${query}`

  const headers: Record<string, string> = { ...request.headers }
  const auth = request.auth
  if ('admin' in auth) headers.authorization = world.authorization
  else if ('header' in auth) headers.authorization = auth.header
  else if ('mangled' in auth) headers.authorization = mangle(world.authorization, auth.mangled)
  else if ('forged' in auth) throw new Error('a forged JWT is made by Harness.send')

  const body = request.body
  let payload: string | Buffer | undefined
  let invalidUtf8 = false
  if (!('none' in body)) {
    const bytes: number[][] = []
    let text: string
    if ('text' in body) text = body.text
    else if ('value' in body) text = leafText(body.value, bytes)
    else {
      const base = route ? BASE_BODIES[routeKey(route)] : undefined
      const value = base ? base(world) : { name: uniqueName('x') }
      for (const mutation of body.base) mutate(value, mutation)
      text = jsonText(value, bytes)
    }
    payload = payloadOf(text, bytes)
    const contentType = body.contentType ?? 'application/json'
    if (contentType !== '') headers['content-type'] = contentType
    invalidUtf8 = Buffer.isBuffer(payload) && /json/i.test(contentType) && !isUtf8(payload)
  }
  const provider = route && webhookProviderOf(route.template)
  if (provider) signDelivery(provider, headers, payload, world)
  return { method: request.method, url, headers, ...(payload === undefined ? {} : { payload }), route, invalidUtf8 }
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

function mangle(authorization: string, how: 'suffix' | 'truncate' | 'flip' | 'upper' | 'spaces'): string {
  switch (how) {
    case 'suffix':
      return `${authorization}x`
    case 'truncate':
      return authorization.slice(0, -1)
    case 'flip': {
      const last = authorization.at(-1)!
      // Different whatever the case: a hex signature compared without case must not match again.
      return `${authorization.slice(0, -1)}${last.toUpperCase() === 'A' ? 'B' : 'A'}`
    }
    case 'upper':
      return authorization.toUpperCase()
    case 'spaces':
      return authorization.replace(' ', '\t ')
  }
}

// ---------------------------------------------------------------------------------------------
// What every answer must be

const ERROR_KEYS = new Set(['status', 'error', 'message', 'detail', 'code', 'request_id', 'errors'])
const LOCATIONS = new Set(['body', 'path', 'query', 'header'])
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** What no answer may show: stack traces, file paths, SQL and database messages. */
const LEAKS: RegExp[] = [
  /\bat (?:async )?[\w$.<>]+ \(/,
  /at Object\./,
  /node_modules/,
  /\/work\/|\/src\/[\w/-]+\.ts/,
  /\.ts:\d+/,
  /relation "/,
  /syntax error at or near/,
  /violates [\w ]*constraint/,
  /duplicate key value/,
  /invalid input syntax for/,
  /\bSELECT\b[\s\S]*\bFROM\b/i,
  /\bINSERT INTO\b/i,
  /\bUPDATE\s+\w+\s+SET\b/i,
  /\bDELETE FROM\b/i,
  /"devDependencies"/,
  /PRIVATE KEY/,
]

const requestText = (sent: Rendered) =>
  `${sent.url}\n${Object.entries(sent.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n${sent.payload === undefined ? '' : sent.payload.toString()}`

/** Every string in a parsed JSON value. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(stringsIn) : []

/** The credential of an Authorization header, when it is long enough that finding it in an answer means an echo. */
function credentialOf(authorization: string | undefined): string | undefined {
  const credential = authorization?.replace(/^\S+\s+/, '').trim()
  return credential && credential.length >= 12 ? credential : undefined
}

/**
 * Never a 5xx; an error is the one JSON error body (docs/errors.md, "Errors") with the status of the answer; no answer shows a
 * credential, a stack trace or SQL that the request did not carry itself.
 */
export function checkAnswer(res: LightMyRequestResponse, sent: Rendered, world: World): void {
  const where = () => `${sent.method} ${sent.url.slice(0, 300)}${sent.url.length > 300 ? '…' : ''} → ${res.statusCode} ${res.body.slice(0, 600)}`
  assert.ok(res.statusCode >= 200 && res.statusCode < 500, `answered ${res.statusCode}: ${where()}`)
  const requestId = res.headers['x-request-id']
  assert.ok(typeof requestId === 'string' && REQUEST_ID.test(requestId), `x-request-id ${String(requestId)}: ${where()}`)
  // A JSON body that is not UTF-8 is malformed, not text with replacement characters in it.
  if (sent.invalidUtf8 && WRITE_METHODS.has(sent.method)) assert.ok(res.statusCode >= 400, `accepted a body that is not UTF-8: ${where()}`)
  if (sent.method === 'HEAD') return
  const text = res.body
  for (const secret of [world.secret, credentialOf(sent.headers.authorization)]) {
    if (secret !== undefined) assert.ok(!text.includes(secret), `the answer shows a credential that was sent: ${where()}`)
  }
  if (res.statusCode < 400) return

  assert.match(String(res.headers['content-type']), /^application\/json\b/, `error not JSON: ${where()}`)
  let body: Record<string, unknown>
  try {
    body = JSON.parse(text)
  } catch {
    assert.fail(`error body is not JSON: ${where()}`)
  }
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `error body not an object: ${where()}`)
  for (const key of Object.keys(body)) assert.ok(ERROR_KEYS.has(key), `unexpected error field ${key}: ${where()}`)
  assert.equal(body.status, res.statusCode, `status field: ${where()}`)
  assert.equal(body.error, STATUS_CODES[res.statusCode], `error field: ${where()}`)
  assert.ok(typeof body.message === 'string' && body.message.length > 0, `message: ${where()}`)
  assert.equal(body.detail, body.message, `detail: ${where()}`)
  assert.ok(typeof body.code === 'string' && Object.hasOwn(ERROR_STATUS, body.code), `code: ${where()}`)
  if (body.code !== 'client_error') assert.equal(ERROR_STATUS[body.code as keyof typeof ERROR_STATUS], res.statusCode, `code vs status: ${where()}`)
  assert.equal(body.request_id, requestId, `request_id: ${where()}`)
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, `errors: ${where()}`)
    for (const e of body.errors as Record<string, unknown>[]) {
      assert.equal(typeof e.path, 'string', `errors[].path: ${where()}`)
      assert.equal(typeof e.message, 'string', `errors[].message: ${where()}`)
      assert.ok(e.location === undefined || LOCATIONS.has(e.location as string), `errors[].location: ${where()}`)
    }
  }
  // The texts as a reader sees them: JSON escapes quotes and newlines.
  const shown = [text, ...stringsIn(body)].join('\n')
  const sentText = requestText(sent)
  for (const leak of LEAKS) {
    if (leak.test(shown) && !leak.test(sentText)) assert.fail(`the error shows ${leak}: ${where()}`)
  }
}

// ---------------------------------------------------------------------------------------------
// The harness: a database of its own, the app, a fake GitHub, the world

export interface Harness {
  t: TestApp
  routes: Route[]
  routeMap: Map<string, Route>
  /** The world, rebuilt first when an accepted write removed part of it. */
  world(): Promise<World>
  /** The database now; writes made outside `send` after it are seen by the next `send`. */
  snapshot(): Promise<Snapshot>
  /**
   * Sends the request and checks the answer (checkAnswer); around a write, snapshots the database
   * and, when the write was refused, asserts that no table changed.
   */
  send(request: HostileRequest): Promise<{ res: LightMyRequestResponse; sent: Rendered }>
  close(): Promise<void>
}

export async function startHarness(): Promise<Harness> {
  let database: IsolatedDatabase | undefined
  let github: FakeProvider | undefined
  let issuer: TestIdentityProvider | undefined
  let t: TestApp | undefined
  try {
    database = await createIsolatedDatabase()
    github = await startFakeProvider('github')
    issuer = await startOidcProvider()
    github.repositories.set(FAKE_REPOSITORY, { defaultBranch: 'main', branches: [{ name: 'main', sha: 'a'.repeat(40) }] })
    // Rate limits would answer most of a run with 429 (they have tests of their own); 0 is no limit.
    t = await createTestApp({
      ...issuer.env,
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
  } catch (error) {
    await t?.close()
    await issuer?.close()
    await github?.close()
    await database?.drop()
    throw error
  }
  const app = t
  const fake = github
  const idp = issuer
  const db = database
  const routes = routesOf(app.app)
  const routeMap = new Map(routes.map((route) => [routeKey(route), route]))
  const snapshot = snapshotter(app.db)
  let current = await createWorld(app.app, app.db, fake, idp.issuer)
  let checkWorld = false
  let unchangedSince: Snapshot | undefined

  const world = async () => {
    if (checkWorld) {
      const repaired = await repairWorld(app.app, app.db, fake, current)
      if (repaired !== current) unchangedSince = undefined
      current = repaired
    }
    checkWorld = false
    return current
  }

  return {
    t: app,
    routes,
    routeMap,
    world,
    async snapshot() {
      // Whoever looks may write next: the next write snapshots afresh.
      unchangedSince = undefined
      return snapshot()
    },
    async send(original) {
      const w = await world()
      let request = original
      if ('forged' in request.auth) {
        const jwt = await forge(idp, w, request.auth.forged)
        request = { ...request, auth: { header: `Bearer ${jwt}` } }
        // A JWT signs its user in (created on first sight) whatever the request: sign in first, so
        // that what the request itself changes is all a snapshot shows.
        unchangedSince = undefined
        const signIn = await app.app.inject({ method: 'GET', url: '/account', headers: { authorization: `Bearer ${jwt}` } })
        checkAnswer(signIn, { method: 'GET', url: '/account', headers: { authorization: `Bearer ${jwt}` }, route: undefined, invalidUtf8: false }, w)
      }
      const route = routeMap.get(request.route)
      if (route && webhookProviderOf(route.template)) {
        w.webhookSecret = await currentWebhookSecret(app.app, w)
        // Making the secret anew (after a request deleted it) is a write of the harness, not of the request.
        unchangedSince = undefined
      }
      const sent = render(request, w, routeMap)
      const write = WRITE_METHODS.has(sent.method)
      // Right after a refused write, the database is as its snapshot after it showed.
      const before = write ? (unchangedSince ?? (await snapshot())) : undefined
      unchangedSince = undefined
      const res = sent.route?.streams
        ? await injectStream(app.app, sent)
        : await app.app.inject({ method: sent.method, url: sent.url, headers: sent.headers, payload: sent.payload })
      checkAnswer(res, sent, w)
      if (before) {
        if (res.statusCode >= 400) {
          const after = await snapshot()
          const changed = changedTables(before, after)
          assert.deepEqual(changed, [], `a refused ${sent.method} ${sent.url.slice(0, 200)} (${res.statusCode}) changed ${changed.join(', ')}`)
          unchangedSince = after
        } else checkWorld = true
      }
      return { res, sent }
    },
    async close() {
      await app.close()
      await idp.close()
      await fake.close()
      await db.drop()
    },
  }
}

/** How long a stream's answer is read before the request is let go. */
const STREAM_READ_MS = 300

/**
 * Sends a request to a streaming route: an error is read whole; a stream of events (which may go
 * on as long as the deployment it follows) only for a moment, then the request is let go as a
 * client that hangs up, so that the server stops following. The answer as `inject` gives it.
 */
export async function injectStream(app: FastifyInstance, sent: Rendered): Promise<LightMyRequestResponse> {
  const hangUp = new AbortController()
  const res = await app.inject({
    method: sent.method,
    url: sent.url,
    headers: sent.headers,
    payload: sent.payload,
    payloadAsStream: true,
    signal: hangUp.signal,
  })
  const chunks: Buffer[] = []
  const stream = res.stream()
  const whole = res.statusCode >= 300
  await new Promise<void>((resolve) => {
    const timer = whole ? undefined : setTimeout(resolve, STREAM_READ_MS)
    stream.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)))
    stream.on('end', resolve)
    stream.on('error', resolve)
    stream.on('close', () => {
      clearTimeout(timer)
      resolve()
    })
  })
  hangUp.abort()
  const body = Buffer.concat(chunks).toString('utf8')
  return { ...res, body, payload: body, rawPayload: Buffer.concat(chunks), json: () => JSON.parse(body) }
}

/** A JWT the issuer signed: valid claims for the world's member, overridden by `claims` (`@member` is its subject). */
function forge(idp: TestIdentityProvider, world: World, claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const payload: Record<string, unknown> = { iss: world.issuer, aud: TEST_AUDIENCE, sub: world.userSubject, iat: now, exp: now + 600, ...claims }
  if (payload.sub === '@member') payload.sub = world.userSubject
  return idp.forge(payload)
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

export const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE organizations; --",
  '" OR ""="',
  '1; SELECT pg_sleep(5)--',
  "') UNION SELECT token_start, digest FROM api_tokens --",
  '$1',
  '$$; drop table projects; $$',
  '\\',
  "\\'",
  '%s%s%s%n',
  '{{7*7}}',
  '$'.concat('{7*7}'),
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '{"$where": "1 == 1"}',
  '{"__proto__": {"polluted": true}}',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'null',
  'undefined',
  'NaN',
  'true',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil',
  '\r\nSet-Cookie: pwned=1',
  '\t',
  ' ',
  '',
  '🚀🚀',
  'Ω≈ç√∫',
  'ＡＢＣ',
  'e\u0301',
  '\uFEFF',
  '\u0085\u2028\u2029',
]

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  // What PostgreSQL cannot store or compare: NUL and lone surrogates.
  { weight: 2, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\ud800x', 'x\udc00', '\u0000\ud800') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udc00', '"', '\\', "'", '%', '/', '\n', 'a', '🚀'), maxLength: 12 }),
  },
)

const invalidUtf8 = fc.constantFrom<number[]>(
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0xa4],
  [0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
)

export const MIB = 1024 * 1024

export const leafArb: fc.Arbitrary<Leaf> = fc.oneof<fc.MaybeWeightedArbitrary<Leaf>[]>(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, [], {}, ['x'], { a: 1 }, [[[]]]).map((json) => ({ json })) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()).map((json) => ({ json })) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(
        '1e309',
        '-1e309',
        '99999999999999999999999999999',
        '-99999999999999999999',
        '-0',
        '1e-400',
        '0.5',
        '2147483648',
        '-2147483649',
        '9007199254740993',
        '1.0',
        '1E2',
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
        '[{"__proto__":{"polluted":true}}]',
        '{"a":1,"a":2}',
        '"\\u0000"',
        '"\\ud800"',
        '"\\udfff\\ud800"',
        '{"\\u0000":1}',
      )
      .map((raw) => ({ raw })),
  },
  { weight: 4, arbitrary: hostileString.map((json) => ({ json })) },
  {
    weight: 2,
    arbitrary: fc.record({ long: fc.constantFrom(256, 1025, 4097, 10_001, 100_001), char: fc.constantFrom('a', 'é', '🚀', '"', '\u0001') }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      deep: fc.constantFrom(3, 100, 1000, 10_000, 100_000),
      open: fc.constantFrom<'[' | '{'>('[', '{'),
      leaf: fc.constantFrom('0', '"x"', '"\\u0000"', 'null'),
      closed: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: invalidUtf8.map((bytes) => ({ bytes })) },
)

export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'toString', '', ' ', '$where', 'a/b~1', '\u0000', '\ud800']

const keyArb = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), hostileString)

export const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;;;',
  'application/json, text/html',
  'application/vnd.api+json',
  'application/jsonx',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  '*/*',
  '',
]

/** Mostly JSON; sometimes another or no content type. */
const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
)

export const INVALID_JSON = [
  '{',
  '{"name":}',
  "{'name': 'x'}",
  '{"name": "x",}',
  '[1,]',
  '{"name": "x"} garbage',
  'NaN',
  'Infinity',
  'undefined',
  '\uFEFF{}',
  '{"name": "\\x41"}',
  '{"name": "\\uZZZZ"}',
  '{"name": "\u0001"}',
  '"unterminated',
  '{"__proto__": {"polluted": true}}',
  '{"a": {"__proto__": {"polluted": true}}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  'null',
  '0',
  '"text"',
  '[]',
  'true',
  '1e309',
  ' ',
  '\n\t',
  'name=x&plan=FREE',
  '<xml/>',
]

function bodyArb(route: Route | undefined): fc.Arbitrary<Body> {
  const paths = schemaPaths(route?.bodySchema)
  const pathArb: fc.Arbitrary<string[]> = paths.length > 0 ? fc.constantFrom(...paths) : fc.constant(['name'])
  const mutationArb: fc.Arbitrary<Mutation> = fc.oneof<fc.MaybeWeightedArbitrary<Mutation>[]>(
    { weight: 6, arbitrary: fc.record({ set: pathArb, value: leafArb }) },
    { weight: 1, arbitrary: fc.record({ remove: pathArb }) },
    {
      weight: 2,
      arbitrary: fc.record({ key: keyArb, at: fc.oneof(fc.constant([] as string[]), pathArb), value: leafArb }),
    },
  )
  const hasBase = route !== undefined && BASE_BODIES[routeKey(route)] !== undefined
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<Body>({ none: true }) },
    { weight: hasBase ? 10 : 1, arbitrary: fc.record({ base: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), contentType: contentTypeArb }) },
    { weight: hasBase ? 1 : 0, arbitrary: fc.record({ base: fc.constant([] as Mutation[]), contentType: contentTypeArb }) },
    { weight: 3, arbitrary: fc.record({ value: leafArb, contentType: contentTypeArb }) },
    { weight: 3, arbitrary: fc.record({ text: fc.oneof(fc.constantFrom(...INVALID_JSON), fc.json()), contentType: contentTypeArb }) },
    // Over the body limit: a 1 MiB string in a field.
    {
      weight: 1,
      arbitrary: fc.record({ base: fc.constant<Mutation[]>([{ set: ['name'], value: { long: MIB, char: 'a' } }]), contentType: contentTypeArb }),
    },
  )
}

export const HOSTILE_SEGMENTS = [
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '..',
  '.',
  '%2e%2e',
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%',
  '%zz',
  '%C0%AF',
  '%ED%A0%80',
  '%FF',
  '%F0%9F%9A%80',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  'constructor',
  "'%20OR%20'1'%3D'1",
  '%27%3B%20DROP%20TABLE%20organizations%3B--',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '{00000000-0000-4000-8000-000000000000}',
  '00000000000040008000000000000000',
  '00000000-0000-4000-8000-0000000000001',
  '%7BorganizationId%7D',
  'a'.repeat(201),
  'a'.repeat(5000),
  ';',
  '*',
  'a/b',
  '%2F',
  '%5C',
  '~',
]

const segmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  { weight: 2, arbitrary: hostileString.map(encodeBytes) },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
)

const paramArb: fc.Arbitrary<Param> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Param>({ real: true }) },
  { weight: 2, arbitrary: fc.constantFrom(...KINDS).map((other) => ({ other })) },
  { weight: 2, arbitrary: fc.uuid().map((uuid) => ({ uuid })) },
  { weight: 4, arbitrary: segmentArb.map((raw) => ({ raw })) },
)

export const QUERY_VALUES = [
  '1e309',
  '99999999999999999999',
  '-1',
  '0',
  '1',
  '100',
  '101',
  '1.5',
  '%201',
  '0x10',
  'NaN',
  'Infinity',
  '',
  '%00',
  '%E0%A4%A',
  '%',
  '%zz',
  'true',
  'false',
  'null',
  'DIFF',
  'diff',
  '%5B%5D',
  '%7B%7D',
  '1%2C2',
  '%F0%9F%9A%80',
  '%27%20OR%201%3D1--',
  'x'.repeat(2000),
  'READY',
  'DEPLOY',
  'API',
  '2024-01-01T00%3A00%3A00Z',
  '2024-13-45T99%3A99%3A99Z',
  'acme%2Fapp',
  'acme/app',
  '..%2F..%2F',
  '@gitToken',
  '00000000-0000-4000-8000-000000000000',
]

export const QUERY_KEYS = [
  '__proto__',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  'constructor',
  'hasOwnProperty',
  'a[]',
  'a[0]',
  '',
  '%E0%A4%A',
  '%00',
  'pageSize',
  'x'.repeat(300),
]

function queryArb(route: Route | undefined): fc.Arbitrary<[string, string | null][]> {
  const declared = (route?.queryParams ?? []).map((param) => param.name)
  const keyArb = fc.oneof(
    { weight: declared.length > 0 ? 6 : 0, arbitrary: declared.length > 0 ? fc.constantFrom(...declared) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...QUERY_KEYS) },
    { weight: 1, arbitrary: hostileString.map(encodeBytes) },
  )
  const valueArb = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<string | null>(...QUERY_VALUES, null) },
    { weight: 3, arbitrary: hostileString.map(encodeBytes) },
    { weight: 1, arbitrary: fc.uuid() },
  )
  // The operation's own query first (when it needs one), then the hostile pairs.
  const base = route ? (BASE_QUERIES[routeKey(route)] ?? []) : []
  return fc.array(fc.tuple(keyArb, valueArb), { minLength: 1, maxLength: 4 }).map((pairs) => [...base, ...pairs])
}

export const AUTH_HEADERS = [
  '',
  ' ',
  'Token',
  'Token ',
  'Bearer',
  'Bearer ',
  'Basic YWRtaW46YWRtaW4=',
  'Digest username="admin"',
  'Token berth_',
  `Token berth_${'A'.repeat(60)}`,
  `Token ${'A'.repeat(20_000)}`,
  'Token \u0000\u0001\u0002',
  'Token a\r\nX-Injected: 1',
  'Token ../../etc/passwd',
  "Token ' OR '1'='1",
  'Token 🚀',
  'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
  'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl',
  'Bearer a.b.c',
  'Bearer ....',
  `Bearer ${'e'.repeat(10_000)}.${'e'.repeat(10_000)}.x`,
  'Token a Token b',
]

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url')

/** Claims of a JWT the issuer really signed: hostile subjects, names and emails, and odd times and audiences. */
const forgedClaimsArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    sub: fc.oneof(
      { weight: 3, arbitrary: fc.constant('@member') },
      { weight: 3, arbitrary: hostileString },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('x'.repeat(256), 'x'.repeat(255), 42, null, ['a'], { a: 1 }, '') },
    ),
    name: fc.oneof(hostileString, fc.constantFrom<unknown>('🚀'.repeat(200), `${'a'.repeat(254)}🚀`, 'x'.repeat(100_000), 42, ['a'], null)),
    preferred_username: hostileString,
    email: fc.oneof(hostileString, fc.constantFrom<unknown>(`${'a'.repeat(400)}@example.com`, 'not-an-email', 42, {})),
    exp: fc.constantFrom<unknown>(-1, 0, 1e21, 2 ** 53, '9999999999', null, 1.5),
    nbf: fc.constantFrom<unknown>(1e21, -1, 'soon', null),
    aud: fc.constantFrom<unknown>([TEST_AUDIENCE, 'other'], ['other'], '', 42),
  },
  { requiredKeys: [] },
)

const authArb: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<Auth>({ admin: true }) },
  { weight: 1, arbitrary: fc.constant<Auth>({ none: true }) },
  { weight: 2, arbitrary: fc.constantFrom(...AUTH_HEADERS).map((header) => ({ header })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<'suffix' | 'truncate' | 'flip' | 'upper' | 'spaces'>('suffix', 'truncate', 'flip', 'upper', 'spaces')
      .map((mangled) => ({ mangled })),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => ({ header: `Token ${s}` })) },
  { weight: 3, arbitrary: forgedClaimsArb.map((forged) => ({ forged })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.json(), fc.json(), fc.string({ maxLength: 20 }))
      .map(([head, payload, signature]) => ({ header: `Bearer ${base64url(head)}.${base64url(payload)}.${base64url(signature)}` })),
  },
)

const headersArb: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'x-request-id': fc.oneof(fc.constantFrom('ok-id.1', 'a'.repeat(129), '\r\nx: y', '../../', '<script>', ''), hostileString),
    'if-match': fc.constantFrom('*', '"x"', 'W/"x"', '"', '', ',,,', '"a", W/"b"', 'x'.repeat(5000)),
    'if-none-match': fc.constantFrom('*', '"x"', 'W/"x"', '"', '', ',,,'),
    accept: fc.constantFrom('application/xml', '*/*', 'text/html', '', 'application/json;q=0'),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
    'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1', 'garbage', '1.1.1.1, 2.2.2.2', ''),
  },
  { requiredKeys: [] },
)

const ALL_METHODS: Method[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']

export const UNKNOWN_PATHS = [
  '/',
  '/v1/organization',
  '/organization/',
  '//organization',
  '/organization/%2e%2e/%2e%2e/etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/docs/static/..%2F..%2Fpackage.json',
  '/docs/static/%2e%2e/%2e%2e/package.json',
  '/docs/..%2F..%2F.env',
  '/openapi.json/..%2F..%2Fpackage.json',
  '/healthz/x',
  '/__proto__',
  '/constructor/prototype',
  '/organization/%00',
  '/%E0%A4%A',
]

function unknownPathArb(routes: Route[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...UNKNOWN_PATHS),
    fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
    fc.tuple(fc.constantFrom(...routes.map((r) => r.template)), segmentArb).map(([template, extra]) => `${template}/${extra}`),
  )
}

/** The route's own method mostly; sometimes another. */
const methodArb = (route: Route) =>
  fc.oneof({ weight: 12, arbitrary: fc.constant<Method>(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...ALL_METHODS) })

/**
 * One hostile request: to a documented route or to an unknown path. Most requests to a documented
 * route are hostile in one respect only (body, path, query or credentials and headers) and valid
 * in the others, so that they get past the checks before it and reach validation and the handler;
 * the rest are hostile throughout.
 */
export function requestArb(routes: Route[]): fc.Arbitrary<HostileRequest> {
  const known = fc.constantFrom(...routes).chain((route) => {
    const valid = {
      method: fc.constant<Method>(route.method),
      route: fc.constant(routeKey(route)),
      params: fc.constant<Record<string, Param>>({}),
      query: fc.constant<[string, string | null][]>(BASE_QUERIES[routeKey(route)] ?? []),
      auth: fc.constant<Auth>({ admin: true }),
      headers: fc.constant<Record<string, string>>({}),
      body: fc.constant<Body>(BASE_BODIES[routeKey(route)] ? { base: [] } : { none: true }),
    }
    const params = fc.record(Object.fromEntries(route.pathParams.map((name) => [name, paramArb]))) as fc.Arbitrary<Record<string, Param>>
    return fc.oneof(
      { weight: 8, arbitrary: fc.record({ ...valid, body: bodyArb(route) }) },
      { weight: route.pathParams.length > 0 ? 3 : 0, arbitrary: fc.record({ ...valid, params }) },
      { weight: 3, arbitrary: fc.record({ ...valid, query: queryArb(route) }) },
      { weight: 3, arbitrary: fc.record({ ...valid, auth: authArb, headers: headersArb }) },
      {
        weight: 3,
        arbitrary: fc.record({
          method: methodArb(route),
          route: valid.route,
          params,
          query: queryArb(route),
          auth: authArb,
          headers: headersArb,
          body: bodyArb(route),
        }),
      },
    )
  })
  const unknown = fc.record({
    method: fc.constantFrom(...ALL_METHODS),
    route: unknownPathArb(routes),
    params: fc.constant({}),
    query: queryArb(undefined),
    auth: authArb,
    headers: headersArb,
    body: bodyArb(undefined),
  })
  return fc.oneof({ weight: 12, arbitrary: known }, { weight: 1, arbitrary: unknown })
}

// ---------------------------------------------------------------------------------------------
// Prototype pollution

/** What Object.prototype and friends hold now, to compare after a run. */
export function prototypeState(): string {
  const state = [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((proto) =>
    Object.getOwnPropertyNames(proto).sort().join(','),
  )
  return state.join('|')
}

export function assertNoPollution(before: string): void {
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype.polluted is set')
  assert.equal(([] as unknown as Record<string, unknown>).polluted, undefined, 'Array.prototype.polluted is set')
  assert.equal(prototypeState(), before, 'a built-in prototype gained or lost a property')
}

const labelsGroupBody = () => ({ name: uniqueName('labels'), labels: [{ key: 'team', value: 'world', propagate_to_cloud_provider: false }] })
const annotationsGroupBody = () => ({ name: uniqueName('annotations'), annotations: [{ key: 'a', value: 'b' }], scopes: ['PODS'] })
const invitationBody = () => ({ email: `${randomUUID().slice(0, 8)}@invited.example.com`, role_id: '00000000-0000-4000-8000-0000000000a4' })
