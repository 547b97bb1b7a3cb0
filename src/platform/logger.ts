import pino, { type DestinationStream, type Logger } from 'pino'
import pretty from 'pino-pretty'

/** Credentials that may sit in a logged object; pino replaces them before the line is written. */
const LOG_REDACTIONS = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'token', '*.token']

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
  return pino({ level, redact: { paths: LOG_REDACTIONS, censor: '[redacted]' } }, destination)
}
