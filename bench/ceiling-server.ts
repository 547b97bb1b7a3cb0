// The ceiling: a bare node:http server answering every request with one body held in memory.
// Usage: node bench/ceiling-server.ts <body file> <port>, with the body as Berth sent it.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const [bodyFile, port] = process.argv.slice(2)
if (!bodyFile || !port) throw new Error('usage: ceiling-server <body file> <port>')
const body = readFileSync(bodyFile)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }

const server = createServer((_req, res) => {
  res.writeHead(200, headers)
  res.end(body)
})
server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`ceiling listening on http://127.0.0.1:${port}\n`))
process.on('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
