import net from 'node:net'
import tls from 'node:tls'

// Just enough SMTP to send one message through a smarthost (a receiver's test notification):
// EHLO, STARTTLS when asked, AUTH PLAIN when a password is set, one recipient.

export interface SmtpMessage {
  host: string
  port: number
  requireTls: boolean
  username: string | undefined
  password: string | undefined
  from: string
  to: string
  subject: string
  text: string
}

const TIMEOUT_MS = 10_000

class SmtpConversation {
  private buffer = ''
  private waiting: ((line: { code: number; text: string }) => void) | undefined
  private failure: Error | undefined
  private replies: { code: number; text: string }[] = []
  private lines: string[] = []

  constructor(private socket: net.Socket) {
    this.listen(socket)
  }

  listen(socket: net.Socket): void {
    this.socket = socket
    socket.setEncoding('utf8')
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error('the smarthost did not answer in time')))
    socket.on('data', (chunk: string) => {
      this.buffer += chunk
      let end = this.buffer.indexOf('\r\n')
      while (end >= 0) {
        const line = this.buffer.slice(0, end)
        this.buffer = this.buffer.slice(end + 2)
        this.lines.push(line)
        // The last line of a reply is `code text`; the others `code-text`.
        if (/^\d{3}(?: |$)/.test(line)) {
          const reply = { code: Number(line.slice(0, 3)), text: this.lines.join('\n') }
          this.lines = []
          if (this.waiting) {
            const resolve = this.waiting
            this.waiting = undefined
            resolve(reply)
          } else this.replies.push(reply)
        }
        end = this.buffer.indexOf('\r\n')
      }
    })
    socket.on('error', (error) => {
      this.failure = error
      this.waiting?.({ code: 0, text: error.message })
    })
  }

  reply(): Promise<{ code: number; text: string }> {
    const ready = this.replies.shift()
    if (ready) return Promise.resolve(ready)
    if (this.failure) return Promise.resolve({ code: 0, text: this.failure.message })
    return new Promise((resolve) => {
      this.waiting = resolve
    })
  }

  async expect(command: string | undefined, code: number): Promise<string> {
    if (command !== undefined) this.socket.write(`${command}\r\n`)
    const answer = await this.reply()
    if (answer.code !== code)
      throw new Error(`the smarthost answered ${command?.split(' ')[0] ?? 'the connection'} with: ${answer.text || 'nothing'}`)
    return answer.text
  }

  upgrade(servername: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.removeAllListeners('data')
      const secured = tls.connect({ socket: this.socket, servername }, () => resolve())
      secured.once('error', reject)
      this.listen(secured as unknown as net.Socket)
    })
  }

  end(): void {
    this.socket.end()
  }
}

/** Sends the message; rejects with what went wrong. */
export async function sendMail(message: SmtpMessage): Promise<void> {
  const socket = net.connect(message.port, message.host)
  const smtp = new SmtpConversation(socket)
  try {
    await smtp.expect(undefined, 220)
    let features = await smtp.expect('EHLO berth', 250)
    if (message.requireTls) {
      if (!/STARTTLS/i.test(features)) throw new Error('the smarthost does not offer STARTTLS, and require_tls is set')
      await smtp.expect('STARTTLS', 220)
      await smtp.upgrade(message.host)
      features = await smtp.expect('EHLO berth', 250)
    }
    if (message.password) {
      const plain = Buffer.from(`\u0000${message.username ?? message.from}\u0000${message.password}`).toString('base64')
      await smtp.expect(`AUTH PLAIN ${plain}`, 235)
    }
    await smtp.expect(`MAIL FROM:<${message.from}>`, 250)
    await smtp.expect(`RCPT TO:<${message.to}>`, 250)
    await smtp.expect('DATA', 354)
    const body = message.text.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..')
    const headers = [
      `From: ${message.from}`,
      `To: ${message.to}`,
      `Subject: ${message.subject}`,
      `Date: ${new Date().toUTCString()}`,
      'Content-Type: text/plain; charset=utf-8',
    ]
    await smtp.expect(`${headers.join('\r\n')}\r\n\r\n${body}\r\n.`, 250)
    await smtp.expect('QUIT', 221).catch(() => undefined)
  } finally {
    smtp.end()
  }
}
