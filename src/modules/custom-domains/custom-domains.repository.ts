import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import type { CustomDomainsTable } from '#src/platform/db/schema.ts'
import { PASSING_CHECKS } from './dns-check.ts'

export type CustomDomainRow = Selectable<CustomDomainsTable>

/** What a create or an edit sets. */
export interface CustomDomainInput {
  domain: string
  generateCertificate: boolean
  useCdn: boolean
}

/** The unique index that keeps a domain to one service of an organization. */
export const DOMAIN_KEY = 'custom_domains_domain_key'

export function createCustomDomainsRepository(db: Db) {
  const rows = (organizationId: string, serviceId: string) =>
    db.selectFrom('customDomains').selectAll().where('organizationId', '=', organizationId).where('serviceId', '=', serviceId)

  return {
    /** The service's domains, oldest first. */
    list(organizationId: string, serviceId: string): Promise<CustomDomainRow[]> {
      return rows(organizationId, serviceId).orderBy('createdAt').orderBy('id').execute()
    },

    find(organizationId: string, serviceId: string, customDomainId: string): Promise<CustomDomainRow | undefined> {
      return rows(organizationId, serviceId).where('id', '=', customDomainId).executeTakeFirst()
    },

    /**
     * Inserts unless the service already holds `max` domains ('full') or is gone ('gone'). The
     * service's row is locked meanwhile, so that concurrent creates cannot both pass the count.
     */
    async insert(organizationId: string, serviceId: string, input: CustomDomainInput, max: number): Promise<CustomDomainRow | 'full' | 'gone'> {
      return db.transaction().execute(async (trx) => {
        const service = await trx
          .selectFrom('services')
          .select('id')
          .where('organizationId', '=', organizationId)
          .where('id', '=', serviceId)
          .forUpdate()
          .executeTakeFirst()
        if (!service) return 'gone'
        const { count } = await trx
          .selectFrom('customDomains')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('serviceId', '=', serviceId)
          .executeTakeFirstOrThrow()
        if (Number(count) >= max) return 'full'
        return trx
          .insertInto('customDomains')
          .values({ organizationId, serviceId, domain: input.domain, generateCertificate: input.generateCertificate, useCdn: input.useCdn })
          .returningAll()
          .executeTakeFirstOrThrow()
      })
    },

    /** A full replacement; a changed domain forgets the last check, which was of the old name. */
    update(organizationId: string, serviceId: string, customDomainId: string, input: CustomDomainInput): Promise<CustomDomainRow | undefined> {
      return db
        .updateTable('customDomains')
        .set({
          domain: input.domain,
          generateCertificate: input.generateCertificate,
          useCdn: input.useCdn,
          checkStatus: sql`case when domain = ${input.domain} then check_status end`,
          checkErrorDetails: sql`case when domain = ${input.domain} then check_error_details end`,
          checkedAt: sql`case when domain = ${input.domain} then checked_at end`,
          updatedAt: sql`now()`,
        })
        .where('organizationId', '=', organizationId)
        .where('serviceId', '=', serviceId)
        .where('id', '=', customDomainId)
        .returningAll()
        .executeTakeFirst()
    },

    async delete(organizationId: string, serviceId: string, customDomainId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('customDomains')
        .where('organizationId', '=', organizationId)
        .where('serviceId', '=', serviceId)
        .where('id', '=', customDomainId)
        .executeTakeFirst()
      return result.numDeletedRows > 0n
    },

    /** Records a check's outcome, unless the domain was renamed or deleted meanwhile. */
    async recordCheck(customDomainId: string, domain: string, status: string, errorDetails: string | null): Promise<void> {
      await db
        .updateTable('customDomains')
        .set({ checkStatus: status, checkErrorDetails: errorDetails, checkedAt: sql`now()` })
        .where('id', '=', customDomainId)
        .where('domain', '=', domain)
        .execute()
    },

    /** The service's domains whose last check passed (those the front door serves), oldest first. */
    async servedDomainsOf(organizationId: string, serviceId: string): Promise<string[]> {
      const found = await rows(organizationId, serviceId)
        .select('domain')
        .where('checkStatus', 'in', [...PASSING_CHECKS])
        .orderBy('createdAt')
        .orderBy('id')
        .execute()
      return found.map((row) => row.domain)
    },

    /** The domains of services, by service id, oldest first (links). */
    async domainsOf(organizationId: string, serviceId: string): Promise<string[]> {
      const found = await rows(organizationId, serviceId).select('domain').orderBy('createdAt').orderBy('id').execute()
      return found.map((row) => row.domain)
    },
  }
}

export type CustomDomainsRepository = ReturnType<typeof createCustomDomainsRepository>
