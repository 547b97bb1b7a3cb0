import dgram from 'node:dgram'
import type { AddressInfo } from 'node:net'
import ipaddr from 'ipaddr.js'

// A tiny authoritative DNS server on loopback (UDP), so that custom domain checks run node's real
// resolver against answers the test chooses, without the internet. It answers A, AAAA, CNAME and TXT
// questions from `zone`; a name missing from the zone is NXDOMAIN, a name present without a record
// of the type asked is NOERROR with no answer (node: ENODATA), and a name marked `silent` gets no
// answer at all (node: a timeout).

export interface ZoneEntry {
  A?: string[]
  AAAA?: string[]
  CNAME?: string
  TXT?: string[]
  silent?: boolean
}

export interface DnsServer {
  /** `127.0.0.1:<port>`, for BERTH_DOMAIN_CHECK_DNS_SERVERS. */
  address: string
  zone: Map<string, ZoneEntry>
  /** The questions asked, as `TYPE name`. */
  asked: string[]
  close(): Promise<void>
}

const TYPES: Record<number, 'A' | 'AAAA' | 'CNAME' | 'TXT'> = { 1: 'A', 28: 'AAAA', 5: 'CNAME', 16: 'TXT' }

function encodeName(name: string): Buffer {
  const parts = name
    .replace(/\.$/, '')
    .split('.')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')]))
  return Buffer.concat([...parts, Buffer.from([0])])
}

/** The first question: its name, type, and where the question section ends. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = []
  let offset = 12
  while (message[offset]! > 0) {
    const length = message[offset]!
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('ascii'))
    offset += 1 + length
  }
  offset += 1
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 }
}

function record(type: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12)
  head.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's
  head.writeUInt16BE(type, 2)
  head.writeUInt16BE(1, 4) // IN
  head.writeUInt32BE(60, 6)
  head.writeUInt16BE(rdata.length, 10)
  return Buffer.concat([head, rdata])
}

function answer(query: Buffer, zone: Map<string, ZoneEntry>, asked: string[]): Buffer | undefined {
  const { name, type, end } = readQuestion(query)
  asked.push(`${TYPES[type] ?? type} ${name}`)
  const entry = zone.get(name)
  if (entry?.silent) return undefined
  const records: Buffer[] = []
  if (entry?.CNAME && (type === 5 || type === 1 || type === 28)) records.push(record(5, encodeName(entry.CNAME)))
  if (entry && !entry.CNAME && type === 1) for (const a of entry.A ?? []) records.push(record(1, Buffer.from(ipaddr.parse(a).toByteArray())))
  if (entry && !entry.CNAME && type === 28) for (const a of entry.AAAA ?? []) records.push(record(28, Buffer.from(ipaddr.parse(a).toByteArray())))
  // One string per record (a TXT value of the tests stays under 255 bytes).
  if (entry && !entry.CNAME && type === 16)
    for (const text of entry.TXT ?? []) records.push(record(16, Buffer.concat([Buffer.from([text.length]), Buffer.from(text, 'ascii')])))
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2) // id
  const recursionDesired = query[2]! & 0x01
  header[2] = 0x84 | recursionDesired // QR, authoritative, RD as asked
  header[3] = 0x80 | (entry ? 0 : 3) // RA; NOERROR or NXDOMAIN
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(records.length, 6)
  return Buffer.concat([header, query.subarray(12, end), ...records])
}

export async function startDnsServer(zone: Record<string, ZoneEntry> = {}): Promise<DnsServer> {
  const socket = dgram.createSocket('udp4')
  const entries = new Map(Object.entries(zone).map(([name, entry]) => [name.toLowerCase(), entry]))
  const asked: string[] = []
  socket.on('message', (message, remote) => {
    try {
      const reply = answer(message, entries, asked)
      if (reply) socket.send(reply, remote.port, remote.address)
    } catch {
      // A message the server cannot read gets no answer.
    }
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address() as AddressInfo
  return {
    address: `127.0.0.1:${port}`,
    zone: entries,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}
