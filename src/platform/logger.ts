import pino, { type Logger } from 'pino'

/** Credentials that may sit in a logged object; pino replaces them before the line is written. */
const LOG_REDACTIONS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'token', '*.token']

/**
 * The process's one JSON logger, on stdout, with credentials redacted. Writes are synchronous:
 * lines appear in the order they were logged and none is lost when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: LOG_REDACTIONS, censor: '[redacted]' } }, pino.destination({ dest: 1, sync: true }))
}
