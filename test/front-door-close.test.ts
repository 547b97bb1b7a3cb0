import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Docker from 'dockerode'
import { createFrontDoor } from '#src/modules/front-door/front-door.ts'
import { type Db, openDatabase } from '#src/platform/db/database.ts'
import { testDatabaseUrl } from './helpers/app.ts'

// Issue 50: a `berth serve` that stops must not stop its Caddy while a configuration load is under
// way or about to start (the routes loaded after a rollout, or after its replaced instances are
// gone, both in the background): a Caddy stopped in the middle of a load can be cut off while it
// writes its storage. `close` waits for them, and nothing is loaded after it.

/** A stand-in for Caddy's admin API whose loads each take `loadMs`: which loads arrived, which finished. */
async function slowAdmin(loadMs: number) {
  const arrived: number[] = []
  const finished: number[] = []
  const server = http.createServer((req, res) => {
    req.resume()
    if (req.method === 'POST' && req.url === '/load') {
      arrived.push(Date.now())
      setTimeout(() => {
        finished.push(Date.now())
        res.end()
      }, loadMs)
      return
    }
    res.statusCode = 404
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, arrived, finished, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe('closing the front door (issue 50)', () => {
  let db: Db
  let dir: string
  before(async () => {
    db = openDatabase(testDatabaseUrl(), 2)
    dir = await mkdtemp(path.join(os.tmpdir(), 'berth-front-door-close-'))
  })
  after(async () => {
    await db.destroy()
    await rm(dir, { recursive: true, force: true })
  })

  it('waits for the retirements and loads under way, and the configuration file; loads nothing afterwards', async () => {
    const admin = await slowAdmin(300)
    const configFile = path.join(dir, 'caddy.json')
    const warnings: string[] = []
    const frontDoor = createFrontDoor({
      db,
      docker: new Docker(),
      adminUrl: admin.url,
      appsDomain: 'apps.close.test',
      caddy: { adminListen: new URL(admin.url).host, httpPort: 1, httpsPort: 2, issuer: { kind: 'internal' } },
      configFile,
      log: { warn: (_fields, message) => void warnings.push(message) },
    })
    try {
      // A rollout's load in the background, and replaced instances that are gone only 500 ms later.
      void frontDoor.sync('a rollout')
      frontDoor.followRetirement(sleep(500), 'instances retired')
      await frontDoor.close()
      assert.equal(admin.arrived.length, 2, 'the rollout and the retirement each loaded the routes before close resolved')
      assert.equal(admin.finished.length, 2, 'both loads were answered before close resolved')
      assert.ok(JSON.parse(await readFile(configFile, 'utf8')).apps, 'the configuration file was written before close resolved')

      await frontDoor.sync('after the close')
      frontDoor.followRetirement(Promise.resolve(), 'retired after the close')
      await sleep(100)
      assert.equal(admin.arrived.length, 2, 'nothing is loaded once the front door is closed')
      assert.deepEqual(warnings, [])
    } finally {
      await admin.close()
    }
  })
})
