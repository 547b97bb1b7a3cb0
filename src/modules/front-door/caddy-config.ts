// The whole configuration of the front door's Caddy, as its admin API's /load takes it, from what
// Berth routes (route-table.ts): one HTTPS server whose routes lead each host name to the
// upstreams of its service, the automatic redirect of plain HTTP to it, and certificates for every
// host from ACME or, without an ACME directory, from Caddy's own local CA (docs/front-door.md).

/** One route: its host names and the instances (`ip:port`) it balances across; none: 503, the service does not run. */
export interface FrontDoorRoute {
  hosts: string[]
  upstreams: string[]
  /** gRPC: the instances speak HTTP/2 without TLS. */
  grpc: boolean
}

/** Where certificates come from. */
export type CertificateIssuer = { kind: 'acme'; directory: string; email: string | undefined; caRoot: string | undefined } | { kind: 'internal' }

export interface CaddySettings {
  /** The admin API's `host:port`, kept as it is: a /load without it would move the admin API to Caddy's default. */
  adminListen: string
  httpPort: number
  httpsPort: number
  /** BERTH_PROXY_LISTEN_HOST: the address the HTTP and HTTPS ports bind to; undefined: every interface. */
  listenHost?: string | undefined
  issuer: CertificateIssuer
  /** Where Caddy keeps certificates and keys; absent: its default (a Caddy the operator runs). */
  storageDir?: string | undefined
}

/** How long a request waits for a healthy instance (a dial that fails is tried on another, or again), and how often. */
const TRY_DURATION = '10s'
const TRY_INTERVAL = '100ms'

function handler(route: FrontDoorRoute): object {
  if (route.upstreams.length === 0)
    return { handler: 'static_response', status_code: 503, headers: { 'Retry-After': ['5'] }, body: 'This service is not running.\n' }
  return {
    handler: 'reverse_proxy',
    upstreams: route.upstreams.map((dial) => ({ dial })),
    load_balancing: { selection_policy: { policy: 'round_robin' }, try_duration: TRY_DURATION, try_interval: TRY_INTERVAL },
    // An instance that refused a connection is left out for a moment, its requests going to the others.
    health_checks: { passive: { fail_duration: '5s', max_fails: 1 } },
    ...(route.grpc ? { transport: { protocol: 'http', versions: ['h2c', '2'] } } : {}),
  }
}

function issuerConfig(issuer: CertificateIssuer, settings: CaddySettings): object {
  if (issuer.kind === 'internal') return { module: 'internal' }
  return {
    module: 'acme',
    ca: issuer.directory,
    ...(issuer.email ? { email: issuer.email } : {}),
    ...(issuer.caRoot ? { trusted_roots_pem_files: [issuer.caRoot] } : {}),
    // The challenges are answered where the front door listens, which need not be 80 and 443.
    challenges: { http: { alternate_port: settings.httpPort }, 'tls-alpn': { alternate_port: settings.httpsPort } },
  }
}

/** A Caddy listen address: `:port` on every interface, `host:port` (`[v6]:port`) on one. */
const listenAddress = (host: string | undefined, port: number) =>
  host === undefined ? `:${port}` : host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`

/** The configuration for these routes. */
export function caddyConfig(routes: readonly FrontDoorRoute[], settings: CaddySettings): object {
  const hosts = [...new Set(routes.flatMap((route) => route.hosts))].sort()
  return {
    admin: { listen: settings.adminListen },
    ...(settings.storageDir ? { storage: { module: 'file_system', root: settings.storageDir } } : {}),
    apps: {
      http: {
        http_port: settings.httpPort,
        https_port: settings.httpsPort,
        servers: {
          'berth-front-door': {
            listen: [listenAddress(settings.listenHost, settings.httpsPort)],
            routes: [
              ...routes
                .filter((route) => route.hosts.length > 0)
                .map((route) => ({ match: [{ host: route.hosts }], handle: [handler(route)], terminal: true })),
              { handle: [{ handler: 'static_response', status_code: 404, body: 'No service has this name.\n' }] },
            ],
            // Caddy's own redirects leave a non-standard HTTPS port out: the server below says it.
            automatic_https: { disable_redirects: true },
          },
          // Plain HTTP: a redirect to the same name and path on the HTTPS port (ACME's HTTP challenge is answered before it).
          'berth-front-door-redirect': {
            listen: [listenAddress(settings.listenHost, settings.httpPort)],
            routes: [
              {
                handle: [
                  {
                    handler: 'static_response',
                    status_code: 308,
                    headers: {
                      Location: [`https://{http.request.host}${settings.httpsPort === 443 ? '' : `:${settings.httpsPort}`}{http.request.uri}`],
                    },
                  },
                ],
              },
            ],
          },
        },
      },
      tls: { automation: { policies: hosts.length > 0 ? [{ subjects: hosts, issuers: [issuerConfig(settings.issuer, settings)] }] : [] } },
      // The local CA's root is for the operator to trust (docs/front-door.md): Caddy must not try to install it (it would ask for sudo).
      pki: { certificate_authorities: { local: { install_trust: false } } },
    },
  }
}
