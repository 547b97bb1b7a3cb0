// A database backup through Berth against the same dump by hand (issue 44): a PostgreSQL 15
// database of about 200 MB deployed by Berth's Docker executor, backed up through the API (pg_dump
// -Fc in its container, gzip and SHA-256 in Berth, into the data dir's backups directory) in rounds
// alternating with `docker exec … pg_dump -Fc -Z0 | gzip` into the same directory, with the peak
// resident memory of the `berth serve` process while its backups ran. The image is the tests'
// (PostgreSQL from Debian's packages, built once per machine: test/helpers/database-engine-images.ts).
import { spawn } from 'node:child_process'
import { mkdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import Docker from 'dockerode'
import type { BerthServer } from './servers.ts'

export interface DatabaseBackupResult {
  method: string
  databaseBytes: number
  rounds: { berthMs: number; byHandMs: number; berthBytes: number; byHandBytes: number }[]
  berthMedianMs: number
  byHandMedianMs: number
  /** Berth's median over the one by hand, as a ratio (1.05: 5 % slower). */
  ratio: number
  /** The most VmRSS the Berth process had while its backups ran, sampled every 50 ms. */
  peakRssBytes: number | null
  /** VmRSS of the Berth process before the first backup. */
  rssBeforeBytes: number | null
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

function api(server: BerthServer, authorization: string) {
  return async (method: string, path: string, body?: object): Promise<{ status: number; json: Body }> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, json: text ? JSON.parse(text) : {} }
  }
}

/** Runs `argv` to its end; rejects with its stderr on a non-zero exit. */
function exec(argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${argv.join(' ')}: ${code} ${err}`))))
  })
}

/**
 * `rounds` rounds on a server started with BERTH_EXECUTOR=docker, its runner in process, and
 * BERTH_DOCKER_DATABASE_IMAGES naming the tests' images; `dataDir` is that server's BERTH_DATA_DIR.
 */
export async function measureDatabaseBackup(
  server: BerthServer,
  dataDir: string,
  seeded: { organizationId: string; authorization: string },
  options: { rounds: number; rows: number },
  log: (message: string) => void,
): Promise<DatabaseBackupResult> {
  const call = api(server, seeded.authorization)
  const expect = (answer: { status: number; json: object }, status: number | number[], what: string) => {
    if (![status].flat().includes(answer.status)) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.json)}`)
    return answer.json as Body
  }
  const project = expect(
    await call('POST', `/organization/${seeded.organizationId}/project`, { name: `backup bench ${Date.now()}` }),
    [200, 201],
    'project',
  )
  const environment = expect(
    await call('POST', `/project/${project.id}/environment`, { name: 'backups', mode: 'DEVELOPMENT' }),
    [200, 201],
    'environment',
  )
  try {
    const database = expect(
      await call('POST', `/environment/${environment.id}/database`, {
        name: 'big',
        type: 'POSTGRESQL',
        version: '15',
        mode: 'CONTAINER',
        accessibility: 'PRIVATE',
        memory: 1024,
        cpu: 2000,
      }),
      201,
      'database',
    )
    const password = expect(await call('GET', `/database/${database.id}/masterCredentials`), 200, 'credentials').password as string
    expect(await call('POST', `/database/${database.id}/deploy`, {}), 202, 'deploy')
    for (;;) {
      const page = expect(await call('GET', `/environment/${environment.id}/deploymentHistoryV2?pageSize=1`), 200, 'history')
      const latest = page.results[0]
      if (latest && ['SUCCESS', 'ERROR', 'CANCELED'].includes(latest.action_status)) {
        if (latest.action_status !== 'SUCCESS') throw new Error(`the database's deploy ended ${JSON.stringify(latest)}`)
        break
      }
      await sleep(200)
    }
    const [container] = await new Docker().listContainers({ filters: { label: [`berth.service-id=${database.id}`] } })
    if (!container) throw new Error('the database has no container')
    const psql = (query: string) =>
      exec(['docker', 'exec', '-e', `PGPASSWORD=${password}`, container.Id, 'psql', '-U', 'superuser', '-d', 'postgres', '-tAc', query])
    for (let i = 0; i < 60 && (await psql('select 1').catch(() => '')) !== '1'; i++) await sleep(500)
    // Rows of hex digits (about half as large gzip-compressed), as real tables compress.
    await psql(
      `create table big as select i as id, md5(random()::text) || md5(random()::text) || md5(random()::text) || md5(random()::text) || md5(random()::text) as payload from generate_series(1, ${options.rows}) i`,
    )
    const databaseBytes = Number(await psql('select pg_database_size(current_database())'))
    log(`database backup: ${Math.round(databaseBytes / 2 ** 20)} MB in the database`)

    const byHandDir = path.join(dataDir, 'backups', 'by-hand')
    await mkdir(byHandDir, { recursive: true })
    const rssBeforeBytes = server.process.rss() ?? null
    let peakRssBytes = rssBeforeBytes
    const rounds: DatabaseBackupResult['rounds'] = []
    for (let round = 0; round < options.rounds; round++) {
      const file = path.join(byHandDir, `round-${round}.pgdump.gz`)
      const handStarted = performance.now()
      await exec([
        'sh',
        '-c',
        'docker exec -e PGPASSWORD="$2" "$1" pg_dump -Fc -Z0 -U superuser -d postgres | gzip -c > "$3"',
        'by-hand',
        container.Id,
        password,
        file,
      ])
      const byHandMs = performance.now() - handStarted
      const byHandBytes = (await stat(file)).size
      await rm(file)

      const started = performance.now()
      const taken = expect(await call('POST', `/database/${database.id}/backup`, { name: `round ${round}`, message: 'bench' }), 201, 'backup')
      let backup: Body
      for (;;) {
        const rss = server.process.rss()
        if (rss !== undefined && (peakRssBytes === null || rss > peakRssBytes)) peakRssBytes = rss
        backup = expect(await call('GET', `/database/${database.id}/backup/${taken.id}`), 200, 'backup status')
        if (backup.backup_status === 'DONE' || backup.backup_status === 'ERROR') break
        await sleep(50)
      }
      const berthMs = performance.now() - started
      if (backup.backup_status !== 'DONE') throw new Error(`round ${round}: the backup ended ${JSON.stringify(backup)}`)
      rounds.push({ berthMs: Math.round(berthMs), byHandMs: Math.round(byHandMs), berthBytes: backup.size_bytes, byHandBytes })
      log(
        `database backup, round ${round + 1}: Berth ${Math.round(berthMs)} ms (${backup.size_bytes} B); by hand ${Math.round(byHandMs)} ms (${byHandBytes} B)`,
      )
      expect(await call('DELETE', `/database/${database.id}/backup/${taken.id}`), 204, 'delete the backup')
    }
    const berthMedianMs = median(rounds.map((round) => round.berthMs))
    const byHandMedianMs = median(rounds.map((round) => round.byHandMs))
    return {
      method:
        'alternating rounds: `docker exec <container> pg_dump -Fc -Z0 | gzip -c > file` in the data dir, then a backup through the API ' +
        '(POST /database/{id}/backup to DONE, polled every 50 ms: pg_dump -Fc -Z0 in the container, gzip and SHA-256 in berth serve, into the same directory)',
      databaseBytes,
      rounds,
      berthMedianMs,
      byHandMedianMs,
      ratio: Math.round((berthMedianMs / byHandMedianMs) * 1000) / 1000,
      peakRssBytes,
      rssBeforeBytes,
    }
  } finally {
    await call('DELETE', `/environment/${environment.id}`).catch(() => undefined)
  }
}
