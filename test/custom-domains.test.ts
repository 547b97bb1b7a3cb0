import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  ApplicationCustomDomainApi,
  ApplicationMainCallsApi,
  ApplicationsApi,
  Configuration,
  ContainerCustomDomainApi,
  ContainerMainCallsApi,
  type CustomDomain,
  HelmCustomDomainApi,
  HelmMainCallsApi,
} from 'qovery-typescript-axios'
import { ConfigError, loadConfig } from '#src/config.ts'
import { customDomainProblem } from '#src/modules/custom-domains/custom-domain-rules.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { assertValidationError, rejectedStatus } from './helpers/assertions.ts'
import { type DnsServer, startDnsServer } from './helpers/dns-server.ts'
import { factories } from './helpers/factories.ts'
import { type FakeProvider, startFakeProvider } from './helpers/fake-git-providers.ts'

// Custom domains of applications, containers and helm services, through the official client and
// with the calls the Terraform provider (qovery_application / qovery_container / qovery_helm
// `custom_domains`) and the CLI (`… domain create|edit|delete|list`) make. Checks look domains up
// in a DNS server of the test's own on loopback, through node's real resolver.

const TIMEOUT_MS = 300

describe('custom domains', () => {
  let t: TestApp
  let basePath: string
  let dns: DnsServer
  let github: FakeProvider

  before(async () => {
    dns = await startDnsServer()
    github = await startFakeProvider('github')
    github.tokens.add('ghp-domains')
    t = await createTestApp({
      BERTH_ALLOW_PRIVATE_URLS: 'true',
      BERTH_DOMAIN_CHECK_DNS_SERVERS: dns.address,
      BERTH_DOMAIN_CHECK_TIMEOUT_MS: String(TIMEOUT_MS),
    })
    basePath = await t.listen()
  })
  after(async () => {
    await t.close()
    await dns.close()
    await github.close()
  })

  /** An organization with an application, a container and a helm service, each with a public web port, and the client's APIs. */
  async function world() {
    const f = factories(t.db)
    const { organization, environment, tokens } = await f.environmentWithTokens()
    const gitToken = await f.gitToken(organization.id, { type: 'GITHUB', token: 'ghp-domains', gitApiUrl: github.url })
    const config = (authorization: string) => new Configuration({ basePath, apiKey: authorization })
    const write = config(tokens.write.authorization)
    const { data: application } = await new ApplicationsApi(write).createApplication(environment.id, {
      name: `web-${randomUUID().slice(0, 8)}`,
      git_repository: { url: 'https://github.com/acme/web', branch: 'main', git_token_id: gitToken.id, provider: 'GITHUB' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      ports: [{ name: 'web', internal_port: 8080, publicly_accessible: true, is_default: true, protocol: 'HTTP' }],
      healthchecks: {},
    })
    const container = await f.containerService(environment.id, {
      ports: [{ name: 'http', internal_port: 80, external_port: 443, publicly_accessible: true, is_default: true, protocol: 'HTTP' }],
    })
    const helm = await f.helmService(environment.id, {
      ports: [{ name: 'http', internal_port: 8080, external_port: 443, service_name: 'web', protocol: 'HTTP', is_default: true }],
    })
    return {
      organization,
      tokens,
      application,
      container,
      helm,
      apis: (authorization = tokens.write.authorization) => ({
        application: new ApplicationCustomDomainApi(config(authorization)),
        container: new ContainerCustomDomainApi(config(authorization)),
        helm: new HelmCustomDomainApi(config(authorization)),
        applicationMain: new ApplicationMainCallsApi(config(authorization)),
        containerMain: new ContainerMainCallsApi(config(authorization)),
        helmMain: new HelmMainCallsApi(config(authorization)),
      }),
    }
  }

  /** The six operations of one kind, named alike. */
  function kindsOf(w: Awaited<ReturnType<typeof world>>, authorization?: string) {
    const a = w.apis(authorization)
    return [
      {
        kind: 'APPLICATION',
        id: w.application.id,
        validation: `z${w.application.id.replaceAll('-', '').slice(0, 8)}.berth.localhost`,
        list: (id: string) => a.application.listApplicationCustomDomain(id),
        create: (id: string, body: Body) => a.application.createApplicationCustomDomain(id, body),
        edit: (id: string, domainId: string, body: Body) => a.application.editCustomDomain(id, domainId, body),
        remove: (id: string, domainId: string) => a.application.deleteCustomDomain(id, domainId),
        get: (id: string, domainId: string) => a.application.getCustomDomainStatus(id, domainId),
        check: (id: string) => a.application.checkApplicationCustomDomain(id),
        links: (id: string) => a.applicationMain.listApplicationLinks(id),
      },
      {
        kind: 'CONTAINER',
        id: w.container.id,
        validation: `z${w.container.id.replaceAll('-', '').slice(0, 8)}-z${w.container.environmentId.replaceAll('-', '').slice(0, 8)}.berth.local`,
        list: (id: string) => a.container.listContainerCustomDomain(id),
        create: (id: string, body: Body) => a.container.createContainerCustomDomain(id, body),
        edit: (id: string, domainId: string, body: Body) => a.container.editContainerCustomDomain(id, domainId, body),
        remove: (id: string, domainId: string) => a.container.deleteContainerCustomDomain(id, domainId),
        get: (id: string, domainId: string) => a.container.getContainerCustomDomainStatus(id, domainId),
        check: (id: string) => a.container.checkContainerCustomDomain(id),
        links: (id: string) => a.containerMain.listContainerLinks(id),
      },
      {
        kind: 'HELM',
        id: w.helm.id,
        validation: `z${w.helm.id.replaceAll('-', '').slice(0, 8)}.berth.localhost`,
        list: (id: string) => a.helm.listHelmCustomDomain(id),
        create: (id: string, body: Body) => a.helm.createHelmCustomDomain(id, body),
        edit: (id: string, domainId: string, body: Body) => a.helm.editHelmCustomDomain(id, domainId, body),
        remove: (id: string, domainId: string) => a.helm.deleteHelmCustomDomain(id, domainId),
        get: (id: string, domainId: string) => a.helm.getHelmCustomDomain(id, domainId),
        check: (id: string) => a.helm.checkHelmCustomDomain(id),
        links: (id: string) => a.helmMain.listHelmLinks(id),
      },
    ]
  }
  type Body = { domain: string; generate_certificate: boolean; use_cdn?: boolean }

  const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}.example.com`

  it('adds, lists, reads, edits and deletes the custom domains of each kind through the official client', async () => {
    const w = await world()
    for (const k of kindsOf(w)) {
      const domain = unique(k.kind.toLowerCase())
      const { data: created, status } = await k.create(k.id, { domain, generate_certificate: true })
      assert.equal(status, 201, k.kind)
      assert.equal(created.domain, domain)
      assert.equal(created.generate_certificate, true)
      assert.equal(created.use_cdn, false, 'use_cdn left out is false, and said so')
      assert.equal(created.validation_domain, k.validation, `${k.kind}: the host of the default link`)
      assert.equal(created.status, 'VALIDATION_PENDING')
      assert.ok(created.created_at)

      const { data: list } = await k.list(k.id)
      assert.deepEqual(list.results, [created])
      assert.deepEqual((await k.get(k.id, created.id)).data, created)

      const renamed = unique('renamed')
      const { data: edited, status: editStatus } = await k.edit(k.id, created.id, { domain: renamed, generate_certificate: false, use_cdn: true })
      assert.equal(editStatus, 200)
      assert.deepEqual([edited.id, edited.domain, edited.generate_certificate, edited.use_cdn], [created.id, renamed, false, true])
      assert.ok(edited.updated_at)

      assert.equal((await k.remove(k.id, created.id)).status, 204)
      assert.deepEqual((await k.list(k.id)).data.results, [])
      assert.equal(await rejectedStatus(k.get(k.id, created.id)), 404)
      assert.equal(await rejectedStatus(k.remove(k.id, created.id)), 404)
      assert.equal(await rejectedStatus(k.edit(k.id, created.id, { domain: renamed, generate_certificate: true })), 404)
    }
  })

  it('refuses domains that are not public DNS names with 400 at /domain', async () => {
    const w = await world()
    const bad = [
      '',
      'localhost',
      'example',
      '10.0.0.1',
      '[::1]',
      '::1',
      '1.2.3.4.5',
      'app.example.com.',
      '-app.example.com',
      'app-.example.com',
      'app..example.com',
      'app_1.example.com',
      'app example.com',
      'ap\u00e9.example.com',
      `${'a'.repeat(64)}.example.com`,
      `${`${'abcdefghij'.repeat(6)}.`.repeat(4)}example.com`, // 255 characters
      `${`${'abcdefghij'.repeat(6)}.`.repeat(3)}${'b'.repeat(45)}.example.com`, // 240: longer than Caddy's certificate lock file name allows
      `*.${`${'abcdefghij'.repeat(6)}.`.repeat(3)}${'b'.repeat(38)}.example.com`, // 235, a wildcard (its `*` written `wildcard_` there: 243)
      'a.*.example.com',
      '**.example.com',
      '*.com',
      '*app.example.com',
      'app.localhost',
      'printer.local',
      'metadata.google.internal',
      'zabcdef12.berth.localhost',
      'x.berth.local',
      'http://app.example.com',
      'app.example.com/path',
      'app.example.com:443',
    ]
    for (const k of kindsOf(w)) {
      for (const domain of bad) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/${k.kind.toLowerCase()}/${k.id}/customDomain`,
          headers: { authorization: w.tokens.write.authorization },
          payload: { domain, generate_certificate: true },
        })
        assert.equal(res.statusCode, 400, `${k.kind} ${JSON.stringify(domain)}: ${res.body}`)
        assert.equal(assertValidationError(res)[0]?.path, '/domain', domain)
      }
      const missing = await t.app.inject({
        method: 'POST',
        url: `/${k.kind.toLowerCase()}/${k.id}/customDomain`,
        headers: { authorization: w.tokens.write.authorization },
        payload: { domain: unique('x') },
      })
      assert.equal(missing.statusCode, 400, 'generate_certificate is required')
    }
    assert.equal((await t.db.selectFrom('customDomains').select('id').where('organizationId', '=', w.organization.id).execute()).length, 0)
  })

  it('takes RFC 1123 names, punycode and one leading wildcard', () => {
    for (const good of [
      'app.example.com',
      'a.b',
      'xn--bcher-kva.de',
      '*.example.com',
      '*.apps.example.co.uk',
      `${'a'.repeat(63)}.example.com`,
      `${`${'abcdefghij'.repeat(6)}.`.repeat(3)}${'b'.repeat(44)}.example.com`, // 239, the longest
      '0.example.com',
    ]) {
      assert.equal(customDomainProblem(good), undefined, good)
    }
  })

  it('reads BERTH_DOMAIN_CHECK_DNS_SERVERS as IP addresses with optional ports, and refuses names', () => {
    const servers = (value: string) => loadConfig({ BERTH_DOMAIN_CHECK_DNS_SERVERS: value }).domainCheck.servers
    assert.deepEqual(servers(''), [])
    assert.deepEqual(servers('1.1.1.1, 127.0.0.1:5353,[::1]:53,2001:db8::1'), ['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '2001:db8::1'])
    for (const bad of ['dns.google', '1.1.1.1:0', '1.1.1.1:70000', 'http://1.1.1.1', '[dns]:53']) {
      assert.throws(() => servers(bad), ConfigError, bad)
    }
    assert.equal(loadConfig({}).domainCheck.timeoutMs, 3000)
    assert.throws(() => loadConfig({ BERTH_DOMAIN_CHECK_TIMEOUT_MS: '0' }), ConfigError)
  })

  it('holds at most 100 domains per service', async () => {
    const w = await world()
    const url = `/helm/${w.helm.id}/customDomain`
    const headers = { authorization: w.tokens.write.authorization }
    const suffix = unique('many')
    for (let i = 0; i < 100; i++) {
      const res = await t.app.inject({ method: 'POST', url, headers, payload: { domain: `d${i}.${suffix}`, generate_certificate: true } })
      assert.equal(res.statusCode, 201, res.body)
    }
    const over = await t.app.inject({ method: 'POST', url, headers, payload: { domain: `d100.${suffix}`, generate_certificate: true } })
    assert.equal(over.statusCode, 400)
    assert.match(over.json().message, /100 custom domains/)
  })

  it('keeps a domain to one service of the organization, case aside; another organization may name it too while none proved it', async () => {
    const w = await world()
    const [application, container] = kindsOf(w)
    const domain = unique('taken')
    const { data: first } = await application!.create(application!.id, { domain, generate_certificate: true })
    for (const [k, name] of [
      [application!, domain],
      [container!, domain.toUpperCase()],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/${k.kind.toLowerCase()}/${k.id}/customDomain`,
        headers: { authorization: w.tokens.write.authorization },
        payload: { domain: name, generate_certificate: true },
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(assertValidationError(res)[0]?.path, '/domain')
    }
    // An edit onto a taken name is refused the same way; onto its own name (another case) it is not.
    const { data: other } = await container!.create(container!.id, { domain: unique('other'), generate_certificate: true })
    assert.equal(await rejectedStatus(container!.edit(container!.id, other.id, { domain, generate_certificate: true })), 400)
    const { data: recased } = await application!.edit(application!.id, first.id, { domain: domain.toUpperCase(), generate_certificate: true })
    assert.equal(recased.domain, domain.toUpperCase())

    // Another organization is not told the name is in use: it may add it.
    const elsewhere = await world()
    const [theirs] = kindsOf(elsewhere)
    const { status } = await theirs!.create(theirs!.id, { domain, generate_certificate: true })
    assert.equal(status, 201)
  })

  it('checks each domain against the DNS: matching CNAME, another CNAME, no such name, no CNAME, behind a CDN, a private address, a timeout', async () => {
    const w = await world()
    for (const k of kindsOf(w)) {
      const names = {
        matching: unique('matching'),
        upper: unique('upper'),
        wrong: unique('wrong'),
        missing: unique('missing'),
        bare: unique('bare'),
        cdn: unique('cdn'),
        inside: unique('inside'),
        slow: unique('slow'),
        wildcard: `*.${unique('wild')}`,
        unproven: unique('unproven'),
      }
      dns.zone.set(names.matching, { CNAME: k.validation })
      dns.zone.set(names.upper, { CNAME: `${k.validation.toUpperCase()}.` })
      dns.zone.set(names.wrong, { CNAME: 'lb.elsewhere.example.net' })
      dns.zone.set(names.bare, { A: ['93.184.216.34'] })
      dns.zone.set(names.cdn, { A: ['104.16.0.1'], AAAA: ['2606:4700::1'] })
      dns.zone.set(names.inside, { A: ['169.254.169.254'] })
      dns.zone.set(names.slow, { silent: true })
      dns.zone.set(names.unproven, { A: ['104.16.0.2'] })
      dns.zone.set(`berth-wildcard-check.${names.wildcard.slice(2)}`, { CNAME: k.validation })
      const behindCdn = new Set([names.cdn, names.inside, names.unproven])
      const ids = new Map<string, string>()
      for (const domain of Object.values(names)) {
        const { data } = await k.create(k.id, { domain, generate_certificate: true, use_cdn: behindCdn.has(domain) })
        ids.set(domain, data.id)
        // A domain behind a CDN proves control with the TXT record it is given (all but `unproven`).
        const { name, value } = (data as CustomDomain & { ownership_txt_record: { name: string; value: string } }).ownership_txt_record
        assert.equal(name, `_berth-challenge.${domain.replace(/^\*\./, '')}`)
        if (domain !== names.unproven) dns.zone.set(name, { TXT: ['v=spf1 -all', value] })
      }
      const started = Date.now()
      const { data: checked } = await k.check(k.id)
      assert.ok(Date.now() - started < TIMEOUT_MS * 5, 'domains are checked at once, each within the timeout')
      const byName = new Map(checked.results.map((result) => [result.domain_name, result]))
      assert.equal(byName.size, Object.keys(names).length)
      const expect = (name: string, status: string, details?: RegExp) => {
        const result = byName.get(name)!
        assert.equal(result.status, status, `${k.kind} ${name}: ${JSON.stringify(result)}`)
        if (details) assert.match(result.error_details ?? '', details)
        else assert.equal(result.error_details, null)
      }
      expect(names.matching, 'MATCHES_LOAD_BALANCER_HOST')
      expect(names.upper, 'MATCHES_LOAD_BALANCER_HOST')
      expect(names.wildcard, 'MATCHES_LOAD_BALANCER_HOST')
      expect(names.wrong, 'DOMAIN_LINKED_TO_WRONG_HOST', /lb\.elsewhere\.example\.net/)
      expect(names.missing, 'DOMAIN_NOT_CONFIGURED', /does not exist/)
      expect(names.bare, 'DOMAIN_NOT_CONFIGURED', /no CNAME/)
      expect(names.cdn, 'RESOLVES_TO_IP')
      // This app allows private addresses (its git provider is on loopback); the next test refuses them.
      expect(names.inside, 'RESOLVES_TO_IP')
      expect(names.slow, 'GENERIC_FAILURE', /timed out/)
      // An address proves nothing of who controls a name: without its TXT record, a CDN domain is not configured, and says what to add.
      expect(
        names.unproven,
        'DOMAIN_NOT_CONFIGURED',
        new RegExp(`TXT record _berth-challenge\\.${names.unproven.replaceAll('.', '\\.')} with the value "berth-verification=[0-9a-f]{32}"`),
      )
      assert.ok(dns.asked.includes(`CNAME ${names.matching}`), 'the look-up reached the DNS server')

      // The last check stays with each domain: the status call reports it.
      const { data: status } = await k.get(k.id, ids.get(names.wrong)!)
      assert.equal(status.status, 'VALIDATION_PENDING')
      const extension = status as CustomDomain & { check_status?: string; check_error_details?: string; checked_at?: string }
      assert.equal(extension.check_status, 'DOMAIN_LINKED_TO_WRONG_HOST')
      assert.match(extension.check_error_details ?? '', /elsewhere/)
      assert.ok(extension.checked_at)
      // A renamed domain forgets the check of its old name.
      const { data: renamed } = await k.edit(k.id, ids.get(names.wrong)!, { domain: unique('renamed'), generate_certificate: true })
      assert.equal((renamed as typeof extension).check_status, null)
    }
  })

  it('counts an address of the server’s own network as configured only where git providers may live there', async () => {
    const strict = await createTestApp({ BERTH_DOMAIN_CHECK_DNS_SERVERS: dns.address, BERTH_DOMAIN_CHECK_TIMEOUT_MS: String(TIMEOUT_MS) })
    try {
      const f = factories(strict.db)
      const { environment, tokens } = await f.environmentWithTokens()
      const container = await f.containerService(environment.id)
      const domain = unique('loopback')
      dns.zone.set(domain, { A: ['93.184.216.34', '169.254.169.254'], AAAA: ['::1'] })
      const url = `/container/${container.id}`
      const headers = { authorization: tokens.write.authorization }
      assert.equal(
        (
          await strict.app.inject({
            method: 'POST',
            url: `${url}/customDomain`,
            headers,
            payload: { domain, generate_certificate: true, use_cdn: true },
          })
        ).statusCode,
        201,
      )
      const refused = (await strict.app.inject({ method: 'GET', url: `${url}/checkCustomDomain`, headers })).json()
      assert.equal(refused.results[0].status, 'DOMAIN_LINKED_TO_WRONG_HOST')
      assert.match(refused.results[0].error_details, /169\.254\.169\.254, ::1.*BERTH_ALLOW_PRIVATE_URLS/)
    } finally {
      await strict.close()
    }
    // The suite's app allows private addresses (BERTH_ALLOW_PRIVATE_URLS=true).
    const w = await world()
    const [, container] = kindsOf(w)
    const domain = unique('loopback')
    dns.zone.set(domain, { A: ['127.0.0.1'] })
    const { data: added } = await container!.create(container!.id, { domain, generate_certificate: true, use_cdn: true })
    const proof = (added as CustomDomain & { ownership_txt_record: { name: string; value: string } }).ownership_txt_record
    dns.zone.set(proof.name, { TXT: [proof.value] })
    assert.equal((await container!.check(container!.id)).data.results[0]?.status, 'RESOLVES_TO_IP')
  })

  it('lists each custom domain among the service’s links, as a domain of the user’s on the default port', async () => {
    const w = await world()
    for (const k of kindsOf(w)) {
      const before = (await k.links(k.id)).data.results ?? []
      assert.ok(before.length > 0 && before.every((link) => link.is_qovery_domain), k.kind)
      const builtIn = before.find((link) => link.is_default)!
      const domain = unique('link')
      await k.create(k.id, { domain, generate_certificate: true })
      const after = (await k.links(k.id)).data.results ?? []
      assert.deepEqual(after.slice(0, before.length), before)
      assert.deepEqual(after.slice(before.length), [
        { ...builtIn, url: `https://${domain}`, is_qovery_domain: false, is_default: true, service_id: k.id, service_type: k.kind },
      ])
      // The CLI's `domain list` strips https:// from links to tell built-in ones from custom ones.
      assert.ok(after.some((link) => link.url.replace('https://', '') === domain))
    }
  })

  it('answers 404 for another organization’s services and domains, and for a domain of another service', async () => {
    const w = await world()
    const stranger = await world()
    const mine = kindsOf(w)
    const theirs = kindsOf(stranger, w.tokens.admin.authorization)
    for (const [i, k] of mine.entries()) {
      const { data } = await k.create(k.id, { domain: unique('own'), generate_certificate: true })
      const owner = kindsOf(stranger)[i]!
      const { data: foreign } = await owner.create(owner.id, { domain: unique('their'), generate_certificate: true })
      const other = theirs[i]!
      assert.equal(await rejectedStatus(other.list(other.id)), 404)
      assert.equal(await rejectedStatus(other.check(other.id)), 404)
      assert.equal(await rejectedStatus(other.get(other.id, foreign.id)), 404)
      assert.equal(await rejectedStatus(other.create(other.id, { domain: unique('x'), generate_certificate: true })), 404)
      assert.equal(await rejectedStatus(other.edit(other.id, foreign.id, { domain: unique('x'), generate_certificate: true })), 404)
      assert.equal(await rejectedStatus(other.remove(other.id, foreign.id)), 404)
      // The caller's own service with a domain id of another service (or another organization): 404.
      assert.equal(await rejectedStatus(k.get(k.id, foreign.id)), 404)
      const sibling = mine[(i + 1) % mine.length]!
      assert.equal(await rejectedStatus(sibling.get(sibling.id, data.id)), 404)
      // A service of another kind on a kind's route: 404.
      assert.equal(await rejectedStatus(k.list(sibling.id)), 404)
    }
    assert.equal((await kindsOf(stranger)[0]!.list(stranger.application.id)).data.results?.length, 1, 'nothing of theirs changed')
  })

  it('lets READ list, read and check, and only WRITE add, edit and delete', async () => {
    const w = await world()
    for (const [i, reader] of kindsOf(w, w.tokens.read.authorization).entries()) {
      const writer = kindsOf(w)[i]!
      const { data } = await writer.create(writer.id, { domain: unique('role'), generate_certificate: true })
      assert.equal((await reader.list(reader.id)).data.results?.length, 1)
      assert.equal((await reader.get(reader.id, data.id)).status, 200)
      assert.equal((await reader.check(reader.id)).status, 200)
      for (const deployer of [reader, kindsOf(w, w.tokens.deploy.authorization)[i]!]) {
        assert.equal(await rejectedStatus(deployer.create(deployer.id, { domain: unique('x'), generate_certificate: true })), 403)
        assert.equal(await rejectedStatus(deployer.edit(deployer.id, data.id, { domain: unique('x'), generate_certificate: true })), 403)
        assert.equal(await rejectedStatus(deployer.remove(deployer.id, data.id)), 403)
      }
    }
  })

  it('deletes a service’s domains with it, freeing their names', async () => {
    const w = await world()
    const [application, container] = kindsOf(w)
    const domain = unique('freed')
    await container!.create(container!.id, { domain, generate_certificate: true })
    const res = await t.app.inject({ method: 'DELETE', url: `/container/${container!.id}`, headers: { authorization: w.tokens.write.authorization } })
    assert.equal(res.statusCode, 204, res.body)
    assert.equal((await t.db.selectFrom('customDomains').select('id').where('serviceId', '=', container!.id).execute()).length, 0)
    assert.equal((await application!.create(application!.id, { domain, generate_certificate: true })).status, 201)
  })

  it('round-trips the Terraform provider’s custom_domains: create, refresh, a plan that deletes, updates and creates, refresh', async () => {
    const w = await world()
    for (const k of kindsOf(w)) {
      // Create: the service first, then one create per planned domain. generate_certificate left out of
      // the plan is sent as false (ToBool of null); use_cdn left out is not sent (ToBoolPointer of null).
      const planned = [
        { domain: unique('tf-a'), generate_certificate: true, use_cdn: false },
        { domain: unique('tf-b'), generate_certificate: false },
      ]
      for (const body of planned) assert.equal((await k.create(k.id, body)).status, 201)
      // Read: the list, matched to the state by `domain`; validation_domain and status are read back.
      const state = (await k.list(k.id)).data.results!
      assert.deepEqual(
        state.map((d) => [d.domain, d.generate_certificate, d.use_cdn, d.validation_domain, d.status]),
        [
          [planned[0]!.domain, true, false, k.validation, 'VALIDATION_PENDING'],
          [planned[1]!.domain, false, false, k.validation, 'VALIDATION_PENDING'],
        ],
      )
      // A second refresh reads the same: nothing computed drifts.
      assert.deepEqual((await k.list(k.id)).data.results, state)

      // Update: a domain gone from the plan is deleted, one whose flags changed is edited, a new one created.
      const [first, second] = state
      await k.remove(k.id, second!.id)
      await k.edit(k.id, first!.id, { domain: first!.domain, generate_certificate: false, use_cdn: true })
      const added = unique('tf-c')
      await k.create(k.id, { domain: added, generate_certificate: true })
      const refreshed = (await k.list(k.id)).data.results!
      assert.deepEqual(
        refreshed.map((d) => [d.id === first!.id, d.domain, d.generate_certificate, d.use_cdn]),
        [
          [true, first!.domain, false, true],
          [false, added, true, false],
        ],
      )
      // Destroy of the service takes the domains with it (checked in its own test); here, a plan without domains.
      for (const d of refreshed) await k.remove(k.id, d.id)
      assert.deepEqual((await k.list(k.id)).data.results, [])
    }
  })

  it('round-trips the CLI’s `domain` commands: list to find by name, create, edit, delete; validation_domain is always set', async () => {
    const w = await world()
    const [application] = kindsOf(w)
    const domain = unique('cli')
    const find = async () => (await application!.list(application!.id)).data.results!.find((d) => d.domain === domain)
    assert.equal(await find(), undefined)
    // `--do-not-generate-certificate` false, `--use-cdn` false: both always sent.
    const { data: created } = await application!.create(application!.id, { domain, generate_certificate: true, use_cdn: false })
    assert.equal(created.generate_certificate, true)
    const found = await find()
    assert.ok(found?.validation_domain, 'the CLI dereferences validation_domain')
    const { data: edited } = await application!.edit(application!.id, found.id, { domain, generate_certificate: false, use_cdn: true })
    assert.equal(edited.generate_certificate, false)
    assert.equal((await application!.remove(application!.id, found.id)).status, 204)
  })
})
