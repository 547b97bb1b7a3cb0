import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { crc32 } from 'node:zlib'
import { CamelCasePlugin, type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { createApiTokensRepository } from '#src/modules/api-tokens/api-tokens.repository.ts'
import { createApiTokensService } from '#src/modules/api-tokens/api-tokens.service.ts'
import type { TokenUsageTracker } from '#src/modules/api-tokens/token-usage.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import { generateApiToken, isWellFormedApiToken } from '#src/platform/auth/api-token-codec.ts'
import type { Database } from '#src/platform/db/schema.ts'
import { AppError } from '#src/platform/http/errors.ts'
import { createTestApp, type TestApp, testDatabaseUrl } from './helpers/app.ts'
import { factories } from './helpers/factories.ts'

// How a presented API token is found: its shape and checksum are checked offline, then it is
// looked up by its SHA-256 digest under a unique index, never by its text or a part of it. How
// close a guess is to a real token changes neither the path it takes nor the answer, so response
// times cannot tell either (asserted by the mechanism, never by measuring time).

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const BODY = /^berth_([0-9A-Za-z]{43})[0-9A-Za-z]{6}$/

/** `berth_` + body + the body's checksum (CRC-32 in 6 base62 digits), as the codec makes them. */
function withChecksum(body: string): string {
  let rest = BigInt(crc32(body))
  let digits = ''
  while (rest > 0n) {
    digits = ALPHABET[Number(rest % 62n)] + digits
    rest /= 62n
  }
  return `berth_${body}${digits.padStart(6, '0')}`
}

/** The body of a token with the character at `index` replaced by another. */
const changedAt = (body: string, index: number) => `${body.slice(0, index)}${body[index] === 'A' ? 'B' : 'A'}${body.slice(index + 1)}`

const sha256 = (text: string) => createHash('sha256').update(text).digest()

describe('API token lookup', () => {
  let pool: pg.Pool
  let db: Kysely<Database>
  const queries: CompiledQuery[] = []
  let real: string
  let service: ReturnType<typeof createApiTokensService>

  before(async () => {
    // The repository on a connection that records every statement and its parameters.
    pool = new pg.Pool({ connectionString: testDatabaseUrl(), max: 2 })
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
      log: (event) => {
        if (event.level === 'query') queries.push(event.query)
      },
    })
    const make = factories(db)
    real = (await make.apiToken((await make.organization()).id, 'READ')).token
    queries.length = 0
    const usage = { touch() {}, pendingFor: () => undefined } as unknown as TokenUsageTracker
    service = createApiTokensService({ repo: createApiTokensRepository(db), organizations: {} as OrganizationsService, usage })
  })
  after(async () => {
    await db?.destroy()
  })

  /** Authenticates `token`; returns the error it failed with (or 'ok') and the statements it ran. */
  async function attempt(token: string): Promise<{ outcome: string; statements: CompiledQuery[] }> {
    queries.length = 0
    let outcome = 'ok'
    try {
      await service.authenticate(token)
    } catch (error) {
      assert.ok(error instanceof AppError, String(error))
      outcome = `${error.code}: ${error.message}`
    }
    return { outcome, statements: [...queries] }
  }

  it('looks a token up by its SHA-256 digest alone, in one statement that guesses near and far share', async () => {
    const body = BODY.exec(real)![1]!
    // Guesses with a valid checksum: one character off at the start, one at the end, and nothing alike.
    const guesses = { first: withChecksum(changedAt(body, 0)), last: withChecksum(changedAt(body, 42)), unrelated: generateApiToken() }
    for (const guess of Object.values(guesses)) assert.ok(isWellFormedApiToken(guess), `${guess} passes the checksum`)

    const found = await attempt(real)
    assert.equal(found.outcome, 'ok')
    assert.equal(found.statements.length, 1)
    const lookup = found.statements[0]!
    assert.match(lookup.sql, /from "api_tokens" where "digest" = \$1$/)

    for (const [name, guess] of Object.entries(guesses)) {
      const { outcome, statements } = await attempt(guess)
      assert.equal(outcome, 'unauthenticated: invalid API token: unknown or revoked', `the guess one off at the ${name}`)
      assert.equal(statements.length, 1, `${name}: one lookup`)
      assert.equal(statements[0]!.sql, lookup.sql, `${name}: the same statement as for the real token`)
      assert.deepEqual(statements[0]!.parameters, [sha256(guess)], `${name}: looked up by its digest only`)
    }

    // Whatever was asked, only a 32-byte digest reached the database: no text, no prefix.
    assert.deepEqual(lookup.parameters, [sha256(real)])
  })

  it('refuses a token whose checksum fails before any database access, the same way wherever the typo is', async () => {
    const body = BODY.exec(real)![1]!
    const checksum = real.slice(-6)
    const typos = [
      `berth_${changedAt(body, 0)}${checksum}`,
      `berth_${changedAt(body, 42)}${checksum}`,
      `berth_${body}${changedAt(checksum, 5)}`,
      real.slice(0, -1),
      `${real}0`,
    ]
    for (const typo of typos) {
      const { outcome, statements } = await attempt(typo)
      assert.equal(outcome, 'unauthenticated: malformed API token', typo)
      assert.deepEqual(statements, [], `${typo}: no statement ran`)
    }
  })

  it('keeps the digests under a unique index, so that a lookup is one index probe', async () => {
    const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'api_tokens'`.execute(db)
    assert.ok(
      rows.some((row) => /^CREATE UNIQUE INDEX \S+ ON public\.api_tokens USING btree \(digest\)$/.test(row.indexdef)),
      JSON.stringify(rows),
    )
  })

  describe('through the API', () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp()
    })
    after(async () => {
      await t?.close()
    })

    it('answers every unknown token alike, near the real one or not, and never quotes it', async () => {
      const body = BODY.exec(real)![1]!
      const guesses = [withChecksum(changedAt(body, 0)), withChecksum(changedAt(body, 42)), generateApiToken()]
      const answers = await Promise.all(
        guesses.map((guess) => t.app.inject({ method: 'GET', url: '/organization', headers: { authorization: `Token ${guess}` } })),
      )
      const shapes = answers.map((res) => {
        const { request_id: _, ...rest } = res.json() as Record<string, unknown>
        return [res.statusCode, rest]
      })
      assert.equal(shapes[0]![0], 401)
      assert.deepEqual(shapes[1], shapes[0])
      assert.deepEqual(shapes[2], shapes[0])
      for (const [i, res] of answers.entries()) assert.ok(!res.body.includes(BODY.exec(guesses[i]!)![1]!), res.body)
    })
  })
})
