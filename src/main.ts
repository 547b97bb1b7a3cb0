import os from 'node:os'
import { migrate } from './cli/migrate.ts'
import { seed } from './cli/seed.ts'
import { serve } from './cli/serve.ts'
import { TOKEN_CREATE_USAGE, tokenCreate } from './cli/token-create.ts'
import { UsageError } from './cli/usage.ts'
import { worker } from './cli/worker.ts'
import { ConfigError, loadConfig } from './config.ts'
import { releaseYoungGeneration } from './platform/young-generation.ts'

const USAGE = `usage: berth <command>

commands:
  serve                 run the API and the deployment runner (and start the embedded PostgreSQL unless DATABASE_URL is set)
  worker                run the deployment runner alone
  migrate               bring the database schema up to date
  token create --org N  create organization N if needed and print a new API token for it
  seed --demo           fill the database with the demo organization and its history; print a token and the console's address

Settings come from the environment: PORT, HOST, DATABASE_URL, BERTH_DATA_DIR, BERTH_LOG_LEVEL, BERTH_LOG_FORMAT (see README).`

/**
 * One-off commands end on SIGINT, SIGTERM or SIGHUP through process.exit, with the conventional
 * 128 + signal code, so that their 'exit' handlers release the embedded database.
 */
function exitOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => process.exit(128 + os.constants.signals[signal]))
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  // Only a server starting gains from a young generation kept small (bin/berth.js); serve lets it grow once listening.
  if (command !== 'serve') releaseYoungGeneration()
  const config = loadConfig()
  if (command !== 'serve' && command !== 'worker') exitOnSignals()
  switch (command) {
    case 'serve':
      return serve(config)
    case 'worker':
      return worker(config)
    case 'migrate':
      return migrate(config)
    case 'seed':
      return seed(config, rest)
    case 'token':
      if (rest[0] !== 'create') throw new UsageError(TOKEN_CREATE_USAGE)
      return tokenCreate(config, rest.slice(1))
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage = error instanceof UsageError || (error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS')
  process.stderr.write(`berth: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(usage || error instanceof ConfigError ? 2 : 1)
})
