import path from 'node:path'
import { parseSecretKey } from './platform/secrets/secret-box.ts'

/** The server's settings, read once from the environment and never changed afterwards. */
export interface Config {
  readonly http: {
    readonly host: string
    readonly port: number
    /** Largest accepted request body, in bytes. */
    readonly bodyLimit: number
    /** How long a stopping server lets in-flight requests finish before it closes them. */
    readonly shutdownGraceMs: number
  }
  readonly database: {
    /** External PostgreSQL server; when unset, Berth runs an embedded one in `dataDir`. */
    readonly url: string | undefined
    readonly dataDir: string
    readonly poolSize: number
  }
  readonly auth: {
    /** How often remembered `last_used_at` values are written back, in milliseconds. */
    readonly tokenUsageFlushMs: number
  }
  readonly log: {
    readonly level: string
  }
  readonly secrets: {
    /** BERTH_SECRET_KEY; when unset, the data dir's own key file is used (secret-key-file.ts). */
    readonly key: Buffer | undefined
  }
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

function text(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  return raw === undefined || raw === '' ? fallback : raw
}

/** Reads and validates the environment; throws `ConfigError` naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = env.DATABASE_URL === '' ? undefined : env.DATABASE_URL
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL')
  }
  const level = text(env, 'BERTH_LOG_LEVEL', 'info')
  if (!LOG_LEVELS.has(level)) throw new ConfigError(`BERTH_LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`)
  const secretKeyText = text(env, 'BERTH_SECRET_KEY', '')
  const secretKey = secretKeyText === '' ? undefined : parseSecretKey(secretKeyText)
  if (secretKeyText !== '' && !secretKey) {
    throw new ConfigError('BERTH_SECRET_KEY must be 32 bytes written as 64 hex digits or as base64 (e.g. `openssl rand -hex 32`)')
  }
  return Object.freeze({
    http: Object.freeze({
      host: text(env, 'HOST', '127.0.0.1'),
      port: integer(env, 'PORT', 8080, 0, 65535),
      bodyLimit: 1024 * 1024,
      shutdownGraceMs: integer(env, 'BERTH_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    }),
    database: Object.freeze({
      url: databaseUrl,
      dataDir: path.resolve(text(env, 'BERTH_DATA_DIR', '.berth')),
      poolSize: integer(env, 'BERTH_DB_POOL_SIZE', 10, 1, 1000),
    }),
    auth: Object.freeze({
      tokenUsageFlushMs: integer(env, 'BERTH_TOKEN_USAGE_FLUSH_MS', 10_000, 10, 3_600_000),
    }),
    log: Object.freeze({ level }),
    secrets: Object.freeze({ key: secretKey }),
  })
}
