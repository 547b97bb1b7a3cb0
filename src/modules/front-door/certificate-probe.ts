import { connect } from 'node:tls'

// What certificate the front door serves for a name, read as a client would: a TLS handshake with
// the name as SNI, the certificate only looked at (never trusted for anything). Custom domains
// answer it as their `certificate` (docs/front-door.md, "Certificates").

export interface CertificateState {
  /** ISSUED: a certificate for the name is served; PENDING: the name is routed, its certificate not obtained yet; NOT_SERVED: the name is not routed (its check has not passed). */
  state: 'ISSUED' | 'PENDING' | 'NOT_SERVED'
  issuer: string | null
  expiresAt: Date | null
}

const PROBE_TIMEOUT_MS = 2_000

/** Whether a certificate's subjectAltName covers `name` (exactly, or by a wildcard one label deep). */
export function covers(subjectAltName: string | undefined, name: string): boolean {
  const names = (subjectAltName ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).toLowerCase())
  const lower = name.toLowerCase()
  return names.some((candidate) => candidate === lower || (candidate.startsWith('*.') && lower.slice(lower.indexOf('.') + 1) === candidate.slice(2)))
}

/** The certificate served at `host:port` for `name`: ISSUED with its issuer and end, else PENDING. */
export function probeCertificate(host: string, port: number, name: string): Promise<CertificateState> {
  const pending: CertificateState = { state: 'PENDING', issuer: null, expiresAt: null }
  return new Promise((resolve) => {
    const socket = connect({ host, port, servername: name.replace(/^\*\./, 'berth-wildcard-check.'), rejectUnauthorized: false })
    const done = (state: CertificateState) => {
      socket.destroy()
      resolve(state)
    }
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(pending))
    socket.once('error', () => done(pending))
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate()
      if (!certificate || !covers(certificate.subjectaltname, name)) return done(pending)
      const issuer = certificate.issuer?.CN ?? certificate.issuer?.O
      done({ state: 'ISSUED', issuer: Array.isArray(issuer) ? issuer.join(', ') : (issuer ?? null), expiresAt: new Date(certificate.valid_to) })
    })
  })
}
