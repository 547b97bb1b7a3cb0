import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertValidationError } from './helpers/assertions.ts'
import { type DnsServer, startDnsServer } from './helpers/dns-server.ts'
import { factories } from './helpers/factories.ts'

// Issue 42, item 2: one organization took another's custom domain (a `use_cdn` check passed on any
// public address, and the front door routed the name to both). A name, and any wildcard overlapping
// it, is held on the whole server by the service whose check proved it; Berth's own names are
// nobody's; a `use_cdn` domain proves control with a TXT record. Checks ask a DNS server of the
// test's own on loopback. (Traffic through Caddy: test/front-door.test.ts.)

const OWN_HOST = 'berth.ops-berth.net'

describe('custom domain claims across organizations', () => {
  let t: TestApp
  let dns: DnsServer

  before(async () => {
    dns = await startDnsServer()
    t = await createTestApp({
      BERTH_DOMAIN_CHECK_DNS_SERVERS: dns.address,
      BERTH_DOMAIN_CHECK_TIMEOUT_MS: '500',
      BERTH_OWN_HOST_NAMES: OWN_HOST,
    })
  })
  after(async () => {
    await t.close()
    await dns.close()
  })

  /** An organization with a container, and calls on its custom domains with its WRITE token. */
  async function tenant() {
    const f = factories(t.db)
    const { environment, tokens } = await f.environmentWithTokens()
    const container = await f.containerService(environment.id, {
      ports: [{ name: 'http', internal_port: 80, external_port: 443, publicly_accessible: true, is_default: true, protocol: 'HTTP' }],
    })
    const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) =>
      t.app.inject({
        method,
        url: `/container/${container.id}${path}`,
        headers: { authorization: tokens.write.authorization },
        ...(payload ? { payload } : {}),
      })
    return {
      container,
      add: (domain: string, useCdn = false) => call('POST', '/customDomain', { domain, generate_certificate: true, use_cdn: useCdn }),
      edit: (id: string, domain: string) => call('PUT', `/customDomain/${id}`, { domain, generate_certificate: true }),
      check: async () =>
        (await call('GET', '/checkCustomDomain')).json().results as { domain_name: string; status: string; error_details: string | null }[],
      list: async () =>
        (await call('GET', '/customDomain')).json().results as {
          id: string
          domain: string
          check_status: string | null
          verified_at: string | null
          ownership_txt_record: { name: string; value: string }
        }[],
    }
  }

  const zone = () => `${randomUUID().slice(0, 8)}-corp.com`

  it("refuses a second claim on a proved name from another organization (409), as a CDN domain and as a wildcard, and frees it once the holder's DNS no longer proves it", async () => {
    const a = await tenant()
    const b = await tenant()
    const parent = zone()
    const shop = `shop.${parent}`
    const added = await a.add(shop)
    assert.equal(added.statusCode, 201, added.body)
    dns.zone.set(shop, { CNAME: added.json().validation_domain })
    assert.equal((await a.check())[0]!.status, 'MATCHES_LOAD_BALANCER_HOST')
    assert.ok((await a.list())[0]!.verified_at, 'a passing check verifies the domain')

    // The attack: B adds A's name behind a CDN (its name resolves to an address, as any public name does).
    dns.zone.set(`x.${parent}`, { A: ['93.184.216.34'] })
    for (const [name, cdn] of [
      [shop, true],
      [shop.toUpperCase(), false],
      [`*.${parent}`, true],
      [`*.${parent}`, false],
    ] as const) {
      const refused = await b.add(name, cdn)
      assert.equal(refused.statusCode, 409, `${name}: ${refused.body}`)
      assert.match(refused.json().message, /held by another service on this server/)
    }
    assert.deepEqual(await b.list(), [], 'nothing of B was written')
    // A rename onto the name is a claim too.
    const other = await b.add(`other.${zone()}`)
    assert.equal(other.statusCode, 201, other.body)
    assert.equal((await b.edit(other.json().id, shop)).statusCode, 409)
    // A's own service may hold a wildcard beside its name.
    assert.equal((await a.add(`*.${parent}`)).statusCode, 201)

    // A's DNS moves away: its verification is gone, checked again at B's claim, which then takes the name.
    dns.zone.delete(shop)
    const taken = await b.add(shop)
    assert.equal(taken.statusCode, 201, taken.body)
    const [mine] = (await a.list()).filter((domain) => domain.domain === shop)
    assert.equal(mine!.verified_at, null, "the holder's failed check ended its verification")
    assert.equal(mine!.check_status, 'DOMAIN_NOT_CONFIGURED')
  })

  it('refuses a claim on a name under a wildcard another organization proved, and a check never verifies a name another service holds', async () => {
    const a = await tenant()
    const b = await tenant()
    const parent = zone()
    const wildcard = await a.add(`*.${parent}`)
    dns.zone.set(`berth-wildcard-check.${parent}`, { CNAME: wildcard.json().validation_domain })
    assert.equal((await a.check())[0]!.status, 'MATCHES_LOAD_BALANCER_HOST')
    assert.equal((await b.add(`api.${parent}`)).statusCode, 409)
    // Deeper names are not under a one-label wildcard.
    assert.equal((await b.add(`v1.api.${parent}`)).statusCode, 201)

    // Two claims made before either proved the name: the first check to pass holds it; the other's is refused.
    const c = await tenant()
    const d = await tenant()
    const name = `race.${zone()}`
    const first = await c.add(name, true)
    const second = await d.add(name, true)
    assert.equal(first.statusCode, 201)
    assert.equal(second.statusCode, 201, 'neither holds the name yet')
    const txt = (await c.list())[0]!.ownership_txt_record
    const theirs = (await d.list())[0]!.ownership_txt_record
    assert.equal(txt.name, theirs.name)
    assert.notEqual(txt.value, theirs.value, 'each domain gets its own token')
    dns.zone.set(name, { A: ['104.16.0.9'] })
    dns.zone.set(txt.name, { TXT: [txt.value, theirs.value] })
    assert.equal((await c.check())[0]!.status, 'RESOLVES_TO_IP')
    const [refused] = await d.check()
    assert.equal(refused!.status, 'DOMAIN_LINKED_TO_WRONG_HOST')
    assert.match(refused!.error_details ?? '', /held by another service/)
    assert.equal((await d.list())[0]!.verified_at, null)
  })

  it('routes a use_cdn domain only once its TXT record proves control, and says what to add', async () => {
    const a = await tenant()
    const name = `cdn.${zone()}`
    const added = await a.add(name, true)
    const { ownership_txt_record: record } = added.json()
    assert.deepEqual(Object.keys(record).sort(), ['name', 'value'])
    assert.equal(record.name, `_berth-challenge.${name}`)
    assert.match(record.value, /^berth-verification=[0-9a-f]{32}$/)
    dns.zone.set(name, { A: ['104.16.0.3'] })
    const [unproven] = await a.check()
    assert.equal(unproven!.status, 'DOMAIN_NOT_CONFIGURED')
    assert.ok(unproven!.error_details?.includes(`add a TXT record ${record.name} with the value "${record.value}"`), unproven!.error_details ?? '')
    assert.equal((await a.list())[0]!.verified_at, null)
    dns.zone.set(record.name, { TXT: ['berth-verification=not-this-one'] })
    assert.equal((await a.check())[0]!.status, 'DOMAIN_NOT_CONFIGURED', 'another token proves nothing')
    dns.zone.set(record.name, { TXT: [record.value] })
    assert.equal((await a.check())[0]!.status, 'RESOLVES_TO_IP')
    assert.ok((await a.list())[0]!.verified_at)
    // The token stays with the domain across edits; a rename forgets the verification.
    const [domain] = await a.list()
    const renamed = await a.edit(domain!.id, `cdn2.${zone()}`)
    assert.equal(renamed.json().verified_at, null)
    assert.equal(renamed.json().ownership_txt_record.value, record.value)
  })

  it("refuses Berth's own host names, and wildcards over them, with 400", async () => {
    const a = await tenant()
    for (const name of [OWN_HOST, OWN_HOST.toUpperCase(), '*.ops-berth.net']) {
      const res = await a.add(name)
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`)
      assert.equal(assertValidationError(res)[0]?.path, '/domain')
      assert.match(res.json().message + JSON.stringify(res.json().errors ?? ''), /name of this Berth server/)
    }
    assert.equal((await a.add(`shop.${OWN_HOST}`)).statusCode, 201, 'a name under it is not its own')
  })
})
