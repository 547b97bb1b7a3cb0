import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'

// The state of IAC services with the `kubernetes` backend (migration 0042): one row per service,
// the engine's state document and the lock a run holds, as the engine's http backend reads and
// writes them through the run's state endpoint (iac-state-endpoint.ts).

/** The engine's lock info: its `ID` names the lock. */
export type LockInfo = Record<string, unknown> & { ID?: unknown }

/** What a write or a lock found: done, or the lock another run holds. */
export type Locked = { ok: true } | { ok: false; held: LockInfo }

export function createIacStatesRepository(db: Db) {
  const heldLock = async (serviceId: string): Promise<LockInfo> =>
    ((await db.selectFrom('iacStates').select('lockInfo').where('serviceId', '=', serviceId).executeTakeFirst())?.lockInfo ?? {}) as LockInfo

  return {
    /** The state document; undefined before the first write. */
    async read(serviceId: string): Promise<string | undefined> {
      const row = await db.selectFrom('iacStates').select('state').where('serviceId', '=', serviceId).executeTakeFirst()
      return row?.state ?? undefined
    },

    /** Writes the state unless another lock than `lockId` is held. */
    async write(serviceId: string, state: string, lockId: string | undefined): Promise<Locked> {
      const written = await db
        .insertInto('iacStates')
        .values({ serviceId, state })
        .onConflict((conflict) =>
          conflict
            .column('serviceId')
            .doUpdateSet({ state, updatedAt: new Date() })
            .where((eb) => eb.or([eb('iacStates.lockInfo', 'is', null), eb(sql`iac_states.lock_info->>'ID'`, '=', lockId ?? '')])),
        )
        .returning('serviceId')
        .executeTakeFirst()
      return written ? { ok: true } : { ok: false, held: await heldLock(serviceId) }
    },

    /** Takes the lock unless one is held. */
    async lock(serviceId: string, info: LockInfo): Promise<Locked> {
      const json = JSON.stringify(info)
      const taken = await db
        .insertInto('iacStates')
        .values({ serviceId, lockInfo: json })
        .onConflict((conflict) =>
          conflict.column('serviceId').doUpdateSet({ lockInfo: json, updatedAt: new Date() }).where('iacStates.lockInfo', 'is', null),
        )
        .returning('serviceId')
        .executeTakeFirst()
      return taken ? { ok: true } : { ok: false, held: await heldLock(serviceId) }
    },

    /** Releases the lock `lockId` names; without one (force-unlock), whatever lock is held. */
    async unlock(serviceId: string, lockId: string | undefined): Promise<Locked> {
      let query = db.updateTable('iacStates').set({ lockInfo: null, updatedAt: new Date() }).where('serviceId', '=', serviceId)
      if (lockId !== undefined) query = query.where(sql<boolean>`(lock_info is null or lock_info->>'ID' = ${lockId})`)
      const released = await query.returning('serviceId').executeTakeFirst()
      if (released) return { ok: true }
      const exists = await db.selectFrom('iacStates').select('serviceId').where('serviceId', '=', serviceId).executeTakeFirst()
      return exists ? { ok: false, held: await heldLock(serviceId) } : { ok: true }
    },
  }
}

export type IacStatesRepository = ReturnType<typeof createIacStatesRepository>
