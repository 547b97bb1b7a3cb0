import pino, { type DestinationStream, type Logger } from 'pino'
import pretty from 'pino-pretty'

/** Credentials that may sit in a logged object; pino replaces them before the line is written. */
const LOG_REDACTIONS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'token', '*.token']

const REDACTED = '[redacted]'

// What a credential looks like wherever it appears: a Berth API token, a JWT (three base64url
// parts, the first a JSON header), or an Authorization header value pasted into a URL.
const CREDENTIAL_PATTERN = String.raw`berth_[0-9A-Za-z]{49}|eyJ[\w-]*\.[\w-]+\.[\w-]*|\b(?:Token|Bearer|Basic)(?:\s|%20|\+)+[\w.~+/=-]+`
const CREDENTIALS = new RegExp(CREDENTIAL_PATTERN, 'gi')
const HOLDS_CREDENTIAL = new RegExp(CREDENTIAL_PATTERN, 'i')

// Query keys under which clients put credentials (`?token=`, `?access_token=`, `?api_key=`…).
const CREDENTIAL_KEY =
  /(?:^|[_.-])(?:token|access_token|api_?key|apikey|key|secret|password|passwd|pwd|auth|authorization|jwt|credentials?|signature|sig)$/i

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/**
 * A request URL fit for the logs: the value of a query parameter is replaced when its key names a
 * credential or the value looks like one, and a credential-shaped text anywhere in the path is
 * replaced too. Berth reads credentials from the Authorization header only, but a client that puts
 * one in a URL must not have it written to every log line about the request.
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?')
  const path = (mark === -1 ? url : url.slice(0, mark)).replace(CREDENTIALS, REDACTED)
  if (mark === -1) return path
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const key = equals === -1 ? pair : pair.slice(0, equals)
      if (equals === -1) return HOLDS_CREDENTIAL.test(decoded(key)) ? REDACTED : pair
      const value = pair.slice(equals + 1)
      const credential = CREDENTIAL_KEY.test(decoded(key)) || HOLDS_CREDENTIAL.test(decoded(value))
      return `${key}=${credential ? REDACTED : value}`
    })
    .join('&')
  return `${path}?${query}`
}

interface LoggedRequest {
  method?: string
  url?: string
  host?: string
  ip?: string
  headers?: Record<string, unknown>
  socket?: { remotePort?: number }
}

/** Fastify's own request serializer, with the URL redacted (pino's serializers take precedence over Fastify's). */
const serializers = {
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
}

/** How log lines are written: one JSON object a line (for machines), or text for a person at a terminal. */
export type LogFormat = 'json' | 'pretty'
/** BERTH_LOG_FORMAT: `auto` (the default) is `pretty` on a terminal and `json` anywhere else. */
export type LogFormatSetting = LogFormat | 'auto'

/**
 * The format for a setting, given whether stdout is a terminal. A pipe, a file or a log collector
 * gets JSON unless asked otherwise: tools parse it, and nothing on the other end reads colours.
 */
export function chooseLogFormat(setting: LogFormatSetting, stdoutIsTerminal: boolean): LogFormat {
  if (setting !== 'auto') return setting
  return stdoutIsTerminal ? 'pretty' : 'json'
}

/**
 * A request's method and URL, or its response's status, inline in Fastify's request lines, in place
 * of the `req` and `res` objects (JSON logs keep them whole): one line a request, for a person.
 */
const PRETTY_MESSAGE = '{msg}{if req.method} {req.method} {req.url}{end}{if res.statusCode} {res.statusCode}{end}'

export interface LoggerOptions {
  format?: LogFormat
  /** The file descriptor lines go to: stdout unless a command keeps stdout for its own output. */
  fd?: 1 | 2
}

/**
 * The process's one logger, with credentials redacted: JSON lines by default, or pino-pretty's
 * text, formatted in this process rather than in a transport's worker thread. Writes are
 * synchronous either way: lines appear in the order they were logged and none is lost when the
 * process exits.
 */
export function createLogger(level: string, { format = 'json', fd = 1 }: LoggerOptions = {}): Logger {
  const destination: DestinationStream =
    format === 'pretty'
      ? pretty({
          destination: fd,
          sync: true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,req,res',
          singleLine: true,
          messageFormat: PRETTY_MESSAGE,
        })
      : pino.destination({ dest: fd, sync: true })
  return pino({ level, redact: { paths: LOG_REDACTIONS, censor: REDACTED }, serializers }, destination)
}
