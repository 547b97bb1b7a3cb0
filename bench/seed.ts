// Seeds the benchmark's data through the real schema: the organization, its token and project through
// Berth's services, then environments and deployment histories in bulk, fanned out by PostgreSQL.
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { loadConfig } from '#src/config.ts'
import type { ApiTokenPrincipal } from '#src/platform/auth/principal.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { createSecretBox } from '#src/platform/secrets/secret-box.ts'
import { createServices } from '#src/services.ts'
import { deploymentTemplate, ID_PLACEHOLDER, MINUTE_PLACEHOLDER, TIMELINE } from './deployment-template.ts'
import { DEEP_PAGE_POSITION } from './scenarios.ts'

export interface SeedInput {
  databaseUrl: string
  /** The key the servers run with (BERTH_SECRET_KEY), so that they can open the git token sealed here. */
  secretKey: Buffer
  environments: number
  bigHistory: number
  smallHistory: number
  /** The loopback GitHub the git token points at, and the secret it accepts. */
  github: { url: string; token: string }
}

export interface Seeded {
  organizationId: string
  /** `Authorization` header value of an ADMIN API token. */
  authorization: string
  bigEnvironmentId: string
  smallEnvironmentId: string
  /** The execution id of the big history's entry at DEEP_PAGE_POSITION, newest first. */
  deepStartId: string
  deepPagePosition: number
  gitTokenId: string
  /** Bytes of one stored entry. */
  entryBytes: number
  seconds: { services: number; environments: number; deployments: number; vacuumAnalyze: number; total: number }
  rows: { environments: number; deploymentRequests: number }
}

const TOKEN_NAME = 'bench admin'
/** Rows per insert statement; two statements run at a time, one per core. */
const CHUNK = 25_000

const elapsedS = (since: number) => Math.round((performance.now() - since) / 10) / 100

/**
 * `count` finished deployments of the environment, one a minute going back from `newestMinute`:
 * seq 1..count in creation order, ids from gen_random_uuid(), and the template's placeholders
 * replaced in each copy of the entry and progress.
 */
async function insertHistory(db: Db, organizationId: string, environmentId: string, count: number, newestMinute: Date) {
  const template = deploymentTemplate(organizationId, environmentId, TOKEN_NAME)
  const ms = (seconds: number) => Math.round(seconds * 1000)
  const chunks: [number, number][] = []
  for (let from = 1; from <= count; from += CHUNK) chunks.push([from, Math.min(count, from + CHUNK - 1)])
  const insertChunk = ([from, to]: [number, number]) =>
    sql`
      insert into deployment_requests
        (id, organization_id, environment_id, seq, service_id, trigger_action, origin, triggered_by, status, action_status,
         progress, created_at, updated_at, started_at, ended_at, entry_json)
      select d.id, ${organizationId}, ${environmentId}, d.seq, null, 'DEPLOY', 'API', ${template.triggeredBy}, 'DEPLOYED', 'SUCCESS',
        replace(${template.progressJson}, ${MINUTE_PLACEHOLDER}, d.minute)::jsonb,
        d.minute_at + ${ms(TIMELINE.createdS)} * interval '1 millisecond',
        d.minute_at + ${ms(TIMELINE.endedS)} * interval '1 millisecond',
        d.minute_at + ${ms(TIMELINE.startedS)} * interval '1 millisecond',
        d.minute_at + ${ms(TIMELINE.endedS)} * interval '1 millisecond',
        replace(replace(${template.entryJson}, ${ID_PLACEHOLDER}, d.id::text), ${MINUTE_PLACEHOLDER}, d.minute)
      from (
        select g as seq, gen_random_uuid() as id, m.minute_at,
          to_char(m.minute_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:') as minute
        from generate_series(${from}::bigint, ${to}::bigint) g
        cross join lateral (select ${newestMinute}::timestamptz - (${count}::bigint - g) * interval '1 minute' as minute_at) m
      ) d`.execute(db)
  // Two statements at a time: one per core of the machine this is sized for.
  const queue = [...chunks]
  await Promise.all(
    [0, 1].map(async () => {
      for (let chunk = queue.shift(); chunk; chunk = queue.shift()) await insertChunk(chunk)
    }),
  )
  await db
    .updateTable('environments')
    .set({ deploymentSeq: String(count) })
    .where('id', '=', environmentId)
    .execute()
  return template.entryBytes
}

export async function seed(input: SeedInput): Promise<Seeded> {
  const started = performance.now()
  const db = openDatabase(input.databaseUrl, 2)
  try {
    const services = createServices(db, {
      tokenUsageFlushMs: 60_000,
      onBackgroundError: () => {},
      secrets: createSecretBox(input.secretKey),
      git: loadConfig({}).git,
      outbound: loadConfig({ BERTH_ALLOW_PRIVATE_URLS: 'true' }).outbound,
    })
    const organization = await services.organizations.findOrCreateByName(`Bench ${randomBytes(4).toString('hex')}`)
    const token = await services.apiTokens.mint(organization.id, { name: TOKEN_NAME, role: 'ADMIN', expiredAt: null })
    // The principal of the token just minted: what authenticating it yields.
    const admin: ApiTokenPrincipal = {
      kind: 'api_token',
      apiTokenId: token.id,
      name: token.name,
      organizationId: organization.id,
      role: 'ADMIN',
      customRoleId: null,
      expiresAt: null,
      ownerUserId: null,
    }
    const project = await services.projects.create(admin, organization.id, { name: 'platform', description: 'the benchmark project' })
    // The first environment through the service, which makes the organization's default cluster.
    const first = await services.environments.create(admin, project.id, { name: 'env-0001', mode: 'PRODUCTION', autoPreview: false })
    const gitToken = await services.gitTokens.create(admin, organization.id, {
      name: 'bench github',
      description: 'the loopback GitHub of the benchmark',
      type: 'GITHUB',
      token: input.github.token,
      workspace: null,
      gitApiUrl: input.github.url,
    })
    const servicesS = elapsedS(started)

    const environmentsStarted = performance.now()
    await sql`
      insert into environments (organization_id, project_id, cluster_id, name, mode, auto_preview, created_at, updated_at)
      select ${organization.id}, ${project.id}, ${first.clusterId}, 'env-' || lpad(g::text, 4, '0'),
        (array['DEVELOPMENT', 'STAGING', 'PRODUCTION', 'PREVIEW'])[1 + g % 4], false,
        now() - g * interval '1 hour', now() - g * interval '1 hour'
      from generate_series(2, ${input.environments}::int) g`.execute(db)
    const { id: smallEnvironmentId } = await db
      .selectFrom('environments')
      .select('id')
      .where('projectId', '=', project.id)
      .where('name', '=', 'env-0002')
      .executeTakeFirstOrThrow()
    const environmentsS = elapsedS(environmentsStarted)

    const deploymentsStarted = performance.now()
    // The newest deployment was created in the previous full minute.
    const newestMinute = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000)
    const entryBytes = await insertHistory(db, organization.id, first.id, input.bigHistory, newestMinute)
    await insertHistory(db, organization.id, smallEnvironmentId, input.smallHistory, newestMinute)
    const deploymentsS = elapsedS(deploymentsStarted)

    // As autovacuum would leave the tables some time after such a load: statistics and visibility map up to date.
    const vacuumStarted = performance.now()
    await sql`vacuum (analyze) deployment_requests, environments`.execute(db)
    const vacuumAnalyzeS = elapsedS(vacuumStarted)

    // A smaller history (a quick trial run) is cut in the middle instead.
    const deepPagePosition = Math.min(DEEP_PAGE_POSITION, Math.ceil(input.bigHistory / 2))
    const deep = await db
      .selectFrom('deploymentRequests')
      .select('id')
      .where('environmentId', '=', first.id)
      .where('seq', '=', String(input.bigHistory - deepPagePosition + 1))
      .executeTakeFirstOrThrow()
    const counts = await sql<{ environments: string; requests: string }>`
      select (select count(*) from environments) as environments, (select count(*) from deployment_requests) as requests`.execute(db)
    return {
      organizationId: organization.id,
      authorization: `Token ${token.token}`,
      bigEnvironmentId: first.id,
      smallEnvironmentId,
      deepStartId: deep.id,
      deepPagePosition,
      gitTokenId: gitToken.id,
      entryBytes,
      seconds: {
        services: servicesS,
        environments: environmentsS,
        deployments: deploymentsS,
        vacuumAnalyze: vacuumAnalyzeS,
        total: elapsedS(started),
      },
      rows: { environments: Number(counts.rows[0]!.environments), deploymentRequests: Number(counts.rows[0]!.requests) },
    }
  } finally {
    await db.destroy()
  }
}
