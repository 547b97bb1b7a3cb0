import { type Selectable, sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { isUniqueViolation } from '#src/platform/db/errors.ts'
import type { PreviewEnvironmentsTable } from '#src/platform/db/schema.ts'

// Preview environments as rows (migration 0030): the claim a pull request or an image's tag makes
// on its source environment, the preview environment it became, its activity.

export type PreviewRow = Selectable<PreviewEnvironmentsTable>

/** What asks for a preview of a source environment: a pull request (number) or an image's tag. */
export interface PreviewKey {
  sourceEnvironmentId: string
  provider: string
  repository: string
  pullRequestNumber: number | null
  imageTag: string | null
}

/** What a preview row tells of its pull request, kept up to date by its events. */
export interface PreviewDetails {
  title: string | null
  url: string | null
  headBranch: string | null
  headCommit: string | null
  author: string | null
}

/** Why a claim was not made. */
export type ClaimRefusal = { existing: PreviewRow } | { full: number }

export function createPreviewsRepository(db: Db) {
  const matching = (key: PreviewKey, queries: Db = db) =>
    queries
      .selectFrom('previewEnvironments')
      .selectAll()
      .where('sourceEnvironmentId', '=', key.sourceEnvironmentId)
      .where('provider', '=', key.provider)
      .where('repository', '=', key.repository)
      .where(sql<boolean>`coalesce(pull_request_number, -1) = ${key.pullRequestNumber ?? -1}`)
      .where(sql<boolean>`coalesce(image_tag, '') = ${key.imageTag ?? ''}`)

  return {
    find: (key: PreviewKey): Promise<PreviewRow | undefined> => matching(key).executeTakeFirst(),

    /**
     * Claims the preview of `key`: a new row, without its environment yet, unless one is there
     * (`existing`) or the source has `max` previews already (`full`). The source's previews are
     * counted under a lock on it, so that concurrent claims count one at a time.
     */
    async claim(organizationId: string, key: PreviewKey, details: PreviewDetails, max: number): Promise<PreviewRow | ClaimRefusal> {
      try {
        return await db.transaction().execute(async (trx) => {
          await sql`select pg_advisory_xact_lock(hashtext(${`preview:${key.sourceEnvironmentId}`}))`.execute(trx)
          const existing = await matching(key, trx).executeTakeFirst()
          if (existing) return { existing }
          const { count } = await trx
            .selectFrom('previewEnvironments')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('sourceEnvironmentId', '=', key.sourceEnvironmentId)
            .executeTakeFirstOrThrow()
          if (Number(count) >= max) return { full: Number(count) }
          return trx
            .insertInto('previewEnvironments')
            .values({ organizationId, ...key, ...details })
            .returningAll()
            .executeTakeFirstOrThrow()
        })
      } catch (error) {
        // A claim that raced past the lock (another source key): the row is there.
        if (!isUniqueViolation(error)) throw error
        const existing = await matching(key).executeTakeFirst()
        if (!existing) throw error
        return { existing }
      }
    },

    /** The claim's preview environment, once cloned; false when the claim went meanwhile (its pull request closed). */
    async attach(id: string, environmentId: string): Promise<boolean> {
      const result = await db.updateTable('previewEnvironments').set({ environmentId }).where('id', '=', id).executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    /** Drops a claim whose clone failed, so that a retry claims again. */
    async release(id: string): Promise<void> {
      await db.deleteFrom('previewEnvironments').where('id', '=', id).where('environmentId', 'is', null).execute()
    },

    /**
     * Records an event's details and activity; with `fromCommit`, only when the head was still at
     * it (false: another event moved it first, or it was already there).
     */
    async touch(id: string, details: PreviewDetails, fromCommit?: string | null): Promise<boolean> {
      let query = db
        .updateTable('previewEnvironments')
        .set({ ...details, lastActivityAt: sql`now()` })
        .where('id', '=', id)
      if (fromCommit !== undefined) query = query.where(sql<boolean>`head_commit is not distinct from ${fromCommit}`)
      const result = await query.executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    /** Marks a preview as not deployed at any commit: its deployment could not be queued. */
    async forgetHead(id: string): Promise<void> {
      await db.updateTable('previewEnvironments').set({ headCommit: null }).where('id', '=', id).execute()
    },

    /** Forgets a preview (its environment's deletion was queued). */
    async remove(id: string): Promise<void> {
      await db.deleteFrom('previewEnvironments').where('id', '=', id).execute()
    },

    /** Leaves a preview's services out of what pushes deploy (migration 0018's columns). */
    async clearPushTargets(environmentId: string): Promise<void> {
      await db.updateTable('services').set({ pushRepository: null, pushBranch: null }).where('environmentId', '=', environmentId).execute()
    },

    /** The previews a pull request asked for, of every source environment. */
    listOfPullRequest(organizationId: string, provider: string, repository: string, number: number): Promise<PreviewRow[]> {
      return db
        .selectFrom('previewEnvironments')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .where('provider', '=', provider)
        .where('repository', '=', repository)
        .where('pullRequestNumber', '=', number)
        .execute()
    },

    /** A source environment's previews, oldest first, with their environments' names (null while being made). */
    listOfSource(sourceEnvironmentId: string): Promise<(PreviewRow & { environmentName: string | null })[]> {
      return db
        .selectFrom('previewEnvironments as p')
        .leftJoin('environments as e', 'e.id', 'p.environmentId')
        .selectAll('p')
        .select('e.name as environmentName')
        .where('p.sourceEnvironmentId', '=', sourceEnvironmentId)
        .orderBy('p.createdAt')
        .orderBy('p.id')
        .execute()
    },

    /** Drops the claims whose clone never came (their process stopped mid-way) after `afterMs`, so that their pull requests may claim again. */
    async releaseStale(afterMs: number): Promise<void> {
      await db
        .deleteFrom('previewEnvironments')
        .where('environmentId', 'is', null)
        .where('createdAt', '<', sql<Date>`now() - make_interval(secs => ${afterMs / 1000})`)
        .execute()
    },

    /** The previews without activity for `idleMs` (0: none), or whose source environment was deleted, at most `limit` of them. */
    listIdle(idleMs: number, limit: number): Promise<PreviewRow[]> {
      return db
        .selectFrom('previewEnvironments')
        .selectAll()
        .where('environmentId', 'is not', null)
        .where((eb) =>
          eb.or([
            eb('sourceEnvironmentId', 'is', null),
            ...(idleMs > 0 ? [eb('lastActivityAt', '<', sql<Date>`now() - make_interval(secs => ${idleMs / 1000})`)] : []),
          ]),
        )
        .orderBy('lastActivityAt')
        .limit(limit)
        .execute()
    },

    /**
     * The environments of the organization that may have previews: `auto_preview` on, not
     * previews themselves, with services.
     */
    async previewSources(organizationId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('environments as e')
        .select('e.id')
        .where('e.organizationId', '=', organizationId)
        .where('e.autoPreview', '=', true)
        .where('e.mode', '<>', 'PREVIEW')
        .where((eb) => eb.exists(eb.selectFrom('services as s').select('s.id').whereRef('s.environmentId', '=', 'e.id')))
        .orderBy('e.id')
        .execute()
      return rows.map((row) => row.id)
    },

    /** The organization's environments holding a container of `imageName`, previews left out. */
    async containerSources(organizationId: string, imageName: string): Promise<string[]> {
      const rows = await db
        .selectFrom('services as s')
        .innerJoin('environments as e', 'e.id', 's.environmentId')
        .select('e.id')
        .distinct()
        .where('s.organizationId', '=', organizationId)
        .where('s.kind', '=', 'CONTAINER')
        .where('e.mode', '<>', 'PREVIEW')
        .where(sql<boolean>`s.configuration->>'imageName' = ${imageName}`)
        .orderBy('e.id')
        .execute()
      return rows.map((row) => row.id)
    },
  }
}

export type PreviewsRepository = ReturnType<typeof createPreviewsRepository>
