import type { Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Db } from '#src/platform/db/database.ts'
import { deleteRows, lockRow } from '#src/platform/db/rows-by-keys.ts'
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

/** The advisory lock claims and verifications of every process take turns on, so that two services never both hold a name. */
const CLAIM_LOCK = 0x62657274_68_5f_6364n

/** A verified domain of another service that overlaps a name (its holder). */
export type DomainHolder = Pick<CustomDomainRow, 'id' | 'organizationId' | 'serviceId' | 'domain' | 'useCdn' | 'verificationToken'>

type Queries = Pick<Db, 'selectFrom'>

/** The verified domains of services other than `serviceId` that overlap `domain` (custom-domain-rules.ts `overlaps`). */
function holdersOf(queries: Queries, domain: string, serviceId: string): Promise<DomainHolder[]> {
  const lower = domain.toLowerCase()
  const parent = lower.slice(lower.indexOf('.') + 1)
  return queries
    .selectFrom('customDomains')
    .select(['id', 'organizationId', 'serviceId', 'domain', 'useCdn', 'verificationToken'])
    .where('verifiedAt', 'is not', null)
    .where('serviceId', '<>', serviceId)
    .where(
      lower.startsWith('*.')
        ? sql<boolean>`regexp_replace(lower(domain), '^[^.]*\.', '') = ${parent}`
        : sql<boolean>`lower(domain) in (${lower}, ${`*.${parent}`})`,
    )
    .orderBy('verifiedAt')
    .execute()
}

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
    async insert(
      organizationId: string,
      serviceId: string,
      input: CustomDomainInput,
      max: number,
    ): Promise<CustomDomainRow | 'full' | 'gone' | { held: DomainHolder[] }> {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx)
        const held = await holdersOf(trx, input.domain, serviceId)
        if (held.length > 0) return { held }
        if (!(await lockRow(trx, 'services', { organizationId, id: serviceId }))) return 'gone'
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

    /**
     * A full replacement; a changed domain (or a change of `use_cdn`, which changes what proves it)
     * forgets the last check and its verification, which were of the old name.
     */
    async update(
      organizationId: string,
      serviceId: string,
      customDomainId: string,
      input: CustomDomainInput,
    ): Promise<CustomDomainRow | undefined | { held: DomainHolder[] }> {
      const same = sql<boolean>`(domain = ${input.domain} and use_cdn = ${input.useCdn})`
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx)
        const held = await holdersOf(trx, input.domain, serviceId)
        if (held.length > 0) return { held }
        return trx
          .updateTable('customDomains')
          .set({
            domain: input.domain,
            generateCertificate: input.generateCertificate,
            useCdn: input.useCdn,
            checkStatus: sql`case when ${same} then check_status end`,
            checkErrorDetails: sql`case when ${same} then check_error_details end`,
            checkedAt: sql`case when ${same} then checked_at end`,
            verifiedAt: sql`case when ${same} then verified_at end`,
            updatedAt: sql`now()`,
          })
          .where('organizationId', '=', organizationId)
          .where('serviceId', '=', serviceId)
          .where('id', '=', customDomainId)
          .returningAll()
          .executeTakeFirst()
      })
    },

    delete(organizationId: string, serviceId: string, customDomainId: string): Promise<boolean> {
      return deleteRows(db, 'customDomains', { organizationId, serviceId, id: customDomainId })
    },

    /**
     * Records a check's outcome, unless the domain was renamed or deleted meanwhile. A passing check
     * verifies the domain (it holds its name from then on) unless another service holds an
     * overlapping name: the outcome is then `held`, and recorded as a failure naming why. A failing
     * check ends the domain's verification.
     */
    async recordCheck(
      domain: { id: string; domain: string; serviceId: string },
      outcome: { status: string; errorDetails: string | null; passed: boolean },
      held: (holder: DomainHolder) => { status: string; errorDetails: string },
    ): Promise<{ status: string; errorDetails: string | null }> {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx)
        const [holder] = outcome.passed ? await holdersOf(trx, domain.domain, domain.serviceId) : []
        const recorded = holder ? held(holder) : outcome
        const verified = outcome.passed && !holder
        await trx
          .updateTable('customDomains')
          .set({
            checkStatus: recorded.status,
            checkErrorDetails: recorded.errorDetails,
            checkedAt: sql`now()`,
            verifiedAt: verified ? sql`coalesce(verified_at, now())` : null,
          })
          .where('id', '=', domain.id)
          .where('domain', '=', domain.domain)
          .execute()
        return { status: recorded.status, errorDetails: recorded.errorDetails }
      })
    },

    /** The service's domains whose last check passed and verified them (those the front door serves), oldest first. */
    async servedDomainsOf(organizationId: string, serviceId: string): Promise<string[]> {
      const found = await rows(organizationId, serviceId)
        .select('domain')
        .where('checkStatus', 'in', [...PASSING_CHECKS])
        .where('verifiedAt', 'is not', null)
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
