import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadConfig } from '#src/config.ts'
import { serviceHosts } from '#src/modules/executors/public-hosts.ts'
import { caddyConfig } from '#src/modules/front-door/caddy-config.ts'
import { covers } from '#src/modules/front-door/certificate-probe.ts'
import { frontDoorLinks } from '#src/modules/front-door/front-door-links.ts'
import { servingInstances } from '#src/modules/front-door/route-table.ts'

// Issue 34, the front door's pure parts: its names, the instances that get traffic during a
// rollout, the Caddy configuration, its settings. The real thing runs in front-door.test.ts.

const SERVICE = '0f1e2d3c-aaaa-bbbb-cccc-000000000001'
const port = (internalPort: number, extra: object = {}) => ({
  internalPort,
  externalPort: 443,
  publiclyAccessible: true,
  isDefault: false,
  protocol: 'HTTP' as const,
  ...extra,
})

describe('front door names', () => {
  it('derives from the id alone: the default port, then every public web port; TCP, UDP and private ports get none', () => {
    const hosts = serviceHosts(
      SERVICE,
      [port(8080), port(9090, { isDefault: true }), port(5432, { protocol: 'TCP' }), port(7000, { publiclyAccessible: false })],
      'apps.example.com',
    )
    assert.deepEqual(hosts, [
      { host: 'z0f1e2d3c.apps.example.com', internalPort: 9090, isDefault: true },
      { host: 'p8080-z0f1e2d3c.apps.example.com', internalPort: 8080, isDefault: false },
      { host: 'p9090-z0f1e2d3c.apps.example.com', internalPort: 9090, isDefault: false },
    ])
    assert.deepEqual(serviceHosts(SERVICE, [port(5432, { protocol: 'TCP' })], 'localhost'), [])
  })

  it('links say the HTTPS port unless it is 443, then the custom domains on the default port', () => {
    const links = frontDoorLinks({ id: SERVICE, kind: 'CONTAINER' }, [port(8080)], { appsDomain: 'localhost', httpsPort: 8443 }, ['shop.example.com'])
    assert.deepEqual(
      links.map((link) => [link.url, link.internal_port, link.external_port, link.is_default, link.is_qovery_domain]),
      [
        ['https://z0f1e2d3c.localhost:8443', 8080, 8443, true, true],
        ['https://p8080-z0f1e2d3c.localhost:8443', 8080, 8443, false, true],
        ['https://shop.example.com:8443', 8080, 8443, true, false],
      ],
    )
    assert.equal(
      frontDoorLinks({ id: SERVICE, kind: 'CONTAINER' }, [port(8080)], { appsDomain: 'a.example.com', httpsPort: 443 }, [])[0]!.url,
      'https://z0f1e2d3c.a.example.com',
    )
  })
})

describe('the instances that get traffic', () => {
  const instance = (id: string, replaces: string[] = [], running = true) => ({ id, serviceId: SERVICE, running, ip: `10.0.0.${id.length}`, replaces })

  it('a new instance gets none until it is ready; once ready, the one it replaces gets none (it drains); instances of several numbers share', () => {
    const old0 = instance('old0')
    const old1 = instance('old1x')
    const new0 = instance('new0yy', ['old0'])
    const ids = (list: { id: string }[]) => list.map((entry) => entry.id).sort()
    assert.deepEqual(ids(servingInstances([old0, old1, new0], new Set(['old0', 'old1x']))), ['old0', 'old1x'])
    assert.deepEqual(ids(servingInstances([old0, old1, new0], new Set(['old0', 'old1x', 'new0yy']))), ['new0yy', 'old1x'])
    // Stopped instances get nothing; instances that predate the marks all serve.
    assert.deepEqual(ids(servingInstances([instance('a', [], false)], new Set(['a']))), [])
    assert.deepEqual(ids(servingInstances([old0, old1], new Set())), ['old0', 'old1x'])
  })
})

describe('the Caddy configuration', () => {
  const settings = {
    adminListen: '127.0.0.1:2999',
    httpPort: 8880,
    httpsPort: 8443,
    issuer: { kind: 'acme' as const, directory: 'https://acme.example/dir', email: 'ops@example.com', caRoot: '/etc/ca.pem' },
    storageDir: '/data/front-door/data',
  }

  it('keeps the admin address, routes each name to its upstreams round robin, answers 503 for a stopped service and 404 for unknown names, and asks ACME for every name', () => {
    // biome-ignore lint/suspicious/noExplicitAny: the configuration is read field by field
    const config: any = caddyConfig(
      [
        { hosts: ['z1.apps', 'shop.example.com'], upstreams: ['10.0.0.2:8080', '10.0.0.3:8080'], grpc: false },
        { hosts: ['z2.apps'], upstreams: [], grpc: false },
      ],
      settings,
    )
    assert.equal(config.admin.listen, '127.0.0.1:2999')
    assert.equal(config.storage.root, '/data/front-door/data')
    const server = config.apps.http.servers['berth-front-door']
    assert.deepEqual(server.listen, [':8443'])
    assert.equal(config.apps.http.http_port, 8880)
    const [served, stopped, fallback] = server.routes
    assert.deepEqual(served.match, [{ host: ['z1.apps', 'shop.example.com'] }])
    assert.deepEqual(served.handle[0].upstreams, [{ dial: '10.0.0.2:8080' }, { dial: '10.0.0.3:8080' }])
    assert.equal(served.handle[0].load_balancing.selection_policy.policy, 'round_robin')
    assert.equal(stopped.handle[0].status_code, 503)
    assert.equal(fallback.match, undefined)
    assert.equal(fallback.handle[0].status_code, 404)
    const [policy] = config.apps.tls.automation.policies
    assert.deepEqual(policy.subjects, ['shop.example.com', 'z1.apps', 'z2.apps'])
    assert.deepEqual(policy.issuers[0].trusted_roots_pem_files, ['/etc/ca.pem'])
    assert.equal(policy.issuers[0].ca, 'https://acme.example/dir')
    assert.equal(policy.issuers[0].email, 'ops@example.com')
    assert.equal(config.apps.pki.certificate_authorities.local.install_trust, false)
    // Plain HTTP redirects to the HTTPS port, which Caddy's own redirect would leave out.
    const redirect = config.apps.http.servers['berth-front-door-redirect']
    assert.deepEqual(redirect.listen, [':8880'])
    assert.deepEqual(redirect.routes[0].handle[0].headers.Location, ['https://{http.request.host}:8443{http.request.uri}'])
    assert.equal(server.automatic_https.disable_redirects, true)
  })

  it('binds the front door to BERTH_PROXY_LISTEN_HOST when set (loopback on a laptop)', () => {
    const listen = (listenHost: string) => {
      // biome-ignore lint/suspicious/noExplicitAny: the configuration is read field by field
      const config: any = caddyConfig([], { ...settings, listenHost })
      return config.apps.http.servers
    }
    assert.deepEqual(listen('127.0.0.1')['berth-front-door'].listen, ['127.0.0.1:8443'])
    assert.deepEqual(listen('127.0.0.1')['berth-front-door-redirect'].listen, ['127.0.0.1:8880'])
    assert.deepEqual(listen('::1')['berth-front-door'].listen, ['[::1]:8443'])
  })

  it("uses Caddy's local CA without an ACME directory", () => {
    // biome-ignore lint/suspicious/noExplicitAny: the configuration is read field by field
    const config: any = caddyConfig([{ hosts: ['z1.localhost'], upstreams: ['10.0.0.2:80'], grpc: true }], {
      ...settings,
      issuer: { kind: 'internal' },
    })
    assert.deepEqual(config.apps.tls.automation.policies[0].issuers, [{ module: 'internal' }])
    assert.deepEqual(config.apps.http.servers['berth-front-door'].routes[0].handle[0].transport.versions, ['h2c', '2'])
  })

  it('reads a certificate as covering a name exactly or by a wildcard one label deep', () => {
    assert.ok(covers('DNS:shop.example.com, DNS:www.example.com', 'shop.example.com'))
    assert.ok(covers('DNS:*.example.com', 'shop.example.com'))
    assert.ok(!covers('DNS:*.example.com', 'a.shop.example.com'))
    assert.ok(!covers(undefined, 'shop.example.com'))
  })
})

describe('front door settings', () => {
  it('runs with the Docker executor unless BERTH_PROXY=off, on ports a user may open, under localhost', () => {
    const docker = loadConfig({ BERTH_EXECUTOR: 'docker' }).proxy
    assert.equal(docker.enabled, true)
    assert.equal(docker.appsDomain, 'localhost')
    assert.ok(docker.httpPort > 1024 && docker.httpsPort > 1024)
    assert.equal(docker.acmeDirectory, undefined)
    assert.equal(loadConfig({}).proxy.enabled, false)
    assert.equal(loadConfig({ BERTH_EXECUTOR: 'docker', BERTH_PROXY: 'off' }).proxy.enabled, false)
    assert.throws(() => loadConfig({ BERTH_PROXY: 'maybe' }), /BERTH_PROXY must be auto or off/)
    assert.throws(() => loadConfig({ BERTH_APPS_DOMAIN: 'not a domain' }), /BERTH_APPS_DOMAIN/)
    assert.throws(() => loadConfig({ BERTH_ACME_DIRECTORY: 'ftp://x' }), /BERTH_ACME_DIRECTORY/)
    assert.throws(() => loadConfig({ BERTH_ACME_EMAIL: 'nobody' }), /BERTH_ACME_EMAIL/)
    assert.equal(loadConfig({ BERTH_PROXY_ADMIN_URL: 'http://10.0.0.5:2019/' }).proxy.adminUrl, 'http://10.0.0.5:2019')
    assert.equal(docker.listenHost, undefined, 'every interface by default')
    assert.equal(loadConfig({ BERTH_PROXY_LISTEN_HOST: '127.0.0.1' }).proxy.listenHost, '127.0.0.1')
    assert.throws(() => loadConfig({ BERTH_PROXY_LISTEN_HOST: 'localhost' }), /BERTH_PROXY_LISTEN_HOST must be an IP address/)
    assert.deepEqual(loadConfig({ BERTH_OWN_HOST_NAMES: 'Berth.Example.com., api.example.com' }).domainCheck.ownHostNames, [
      'berth.example.com',
      'api.example.com',
      'localhost',
    ])
    assert.throws(() => loadConfig({ BERTH_OWN_HOST_NAMES: 'https://berth.example.com' }), /BERTH_OWN_HOST_NAMES/)
  })
})
