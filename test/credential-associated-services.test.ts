import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createBackupsRepository } from '#src/modules/backups/backups.repository.ts'
import { withBackupTables } from '#src/modules/backups/backups.tables.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// The one list of the services that use a credential (associated-services.repository.ts), and the
// one delete refused while rows use what it deletes (src/platform/db/delete-unless-used.ts).

describe('services using a credential, and deletes refused while something uses a row', () => {
  let t: TestApp

  before(async () => {
    t = await createTestApp()
  })
  after(async () => t?.close())

  it("names a container registry's jobs CRON or LIFECYCLE by their schedule", async () => {
    const f = factories(t.db)
    const { organization, tokens, environment } = await f.environmentWithTokens()
    const registry = await f.containerRegistry(organization.id)
    const image = { image: { image_name: 'busybox', tag: '1.36', registry_id: registry.id } }
    const container = await f.containerService(environment.id, { name: 'a-web', registry_id: registry.id })
    const lifecycle = await f.job(environment.id, { name: 'b-migrate', source: image })
    const cron = await f.job(environment.id, {
      name: 'c-tick',
      source: image,
      schedule: { cronjob: { scheduled_at: '0 3 * * *', arguments: ['tick'] } },
    })

    const res = await t.app.inject({
      method: 'GET',
      url: `/organization/${organization.id}/containerRegistry/${registry.id}/associatedServices`,
      headers: { authorization: tokens.read.authorization },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(
      res
        .json()
        .results.map((service: { service_id: string; service_type: string; environment_id: string }) => [
          service.service_id,
          service.service_type,
          service.environment_id,
        ]),
      [
        [container.id, 'CONTAINER', environment.id],
        [lifecycle.id, 'LIFECYCLE', environment.id],
        [cron.id, 'CRON', environment.id],
      ],
    )
  })

  it('keeps a backup destination that a schedule being written uses, counting it once that write commits', async () => {
    const f = factories(t.db)
    const { organization, environment } = await f.environmentWithTokens()
    const database = await f.database(environment.id)
    const repo = createBackupsRepository(t.db)
    const destination = await repo.insertDestination(organization.id, {
      name: 'store',
      endpoint: 'https://s3.example.com',
      region: 'eu-west-3',
      bucket: 'backups',
      prefix: '',
      pathStyle: false,
      accessKeyId: 'AKIAEXAMPLE',
      secretSealed: Buffer.from('sealed'),
    })

    let deleting: Promise<{ usedBy: number } | undefined> | undefined
    await withBackupTables(t.db)
      .transaction()
      .execute(async (trx) => {
        // The schedule's foreign key holds a key share lock on the destination until this commits.
        await trx
          .insertInto('databaseBackupSchedules')
          .values({
            serviceId: database.id,
            organizationId: organization.id,
            cron: '0 3 * * *',
            timezone: 'UTC',
            destinationId: destination.id,
            keepCount: null,
            keepDays: null,
            nextFireAt: new Date(Date.now() + 86_400_000),
          })
          .execute()
        deleting = repo.deleteDestinationUnlessUsed(organization.id, destination.id)
        await new Promise((resolve) => setTimeout(resolve, 300))
      })
    assert.deepEqual(await deleting, { usedBy: 1 })
    assert.equal((await repo.findDestination(organization.id, destination.id))?.id, destination.id)
  })
})
