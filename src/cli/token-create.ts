import { parseArgs } from 'node:util'
import type { Config } from '#src/config.ts'
import { isRole, type Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import { hasEmbeddedCluster } from '#src/platform/db/embedded.ts'
import { noSecrets } from '#src/platform/secrets/secret-box.ts'
import { createServices } from '#src/services.ts'
import { openDatabaseRuntime } from './database-runtime.ts'
import { parseDuration } from './duration.ts'
import { UsageError } from './usage.ts'

export const TOKEN_CREATE_USAGE = `usage: berth token create --org <name> [--role ADMIN|WRITE|DEPLOY|READ] [--expires-in 30d] [--name <token name>] [--init]

Creates the organization when it does not exist, then prints a new API token, alone, on stdout.
On the embedded database, the data dir (BERTH_DATA_DIR) must hold one already, as the server
using it made it; --init makes a new one there instead.`

export interface OrganizationToken {
  /** The secret, shown this once: only its digest is stored. */
  token: string
  name: string
  organization: { id: string; name: string }
}

/**
 * The way in for whoever operates the server: the organization of that name (created when
 * missing) and a new API token in it, minted without a caller, as `berth token create` does.
 */
export async function mintOrganizationToken(
  db: Db,
  config: Config,
  request: { organization: string; role: Role; name: string; description: string; expiredAt: Date | null },
): Promise<OrganizationToken> {
  const { organizations, apiTokens } = createServices(db, {
    tokenUsageFlushMs: 60_000,
    onBackgroundError: () => {},
    secrets: noSecrets,
    git: config.git,
    outbound: config.outbound,
  })
  const organization = await organizations.findOrCreateByName(request.organization)
  const created = await apiTokens.mint(organization.id, {
    name: request.name,
    description: request.description,
    role: request.role,
    expiredAt: request.expiredAt,
  })
  return { token: created.token, name: created.name, organization: { id: organization.id, name: organization.name } }
}

/** `berth token create`: bootstraps an organization and prints a fresh API token for it. */
export async function tokenCreate(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' },
      role: { type: 'string', default: 'ADMIN' },
      'expires-in': { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      init: { type: 'boolean', default: false },
    },
    strict: true,
  })
  const orgName = values.org?.trim()
  if (!orgName) throw new UsageError('--org is required')
  const role = values.role.toUpperCase()
  if (!isRole(role)) throw new UsageError(`--role must be ADMIN, WRITE, DEPLOY or READ, not "${values.role}"`)
  let expiredAt: Date | null = null
  if (values['expires-in'] !== undefined) {
    try {
      expiredAt = new Date(Date.now() + parseDuration(values['expires-in']))
    } catch (error) {
      throw new UsageError(`--expires-in: ${(error as Error).message}`)
    }
  }

  // A token minted into a database no server uses is refused by the server the caller meant: a
  // data dir without a database is taken for the wrong one, unless the caller says to make it.
  if (!config.database.url && !values.init && !hasEmbeddedCluster(config.database.dataDir)) {
    throw new Error(
      `no Berth database in ${config.database.dataDir}: run this command with the settings of the server it is for ` +
        '(its BERTH_DATA_DIR, or DATABASE_URL), or add --init to make a new database there',
    )
  }
  const database = await openDatabaseRuntime(config, { use: 'command', log: () => {} })
  try {
    const created = await mintOrganizationToken(database.db, config, {
      organization: orgName,
      name: values.name ?? `berth-cli-${new Date().toISOString()}`,
      description: values.description ?? 'created with berth token create',
      role,
      expiredAt,
    })
    const { organization } = created
    process.stdout.write(`${created.token}\n`)
    process.stderr.write(`${role} token "${created.name}" for organization "${organization.name}" (${organization.id})\n`)
  } finally {
    // The token is printed and stored: a database that will not stop is worth a warning, not a
    // failed command whose caller would throw a working token away.
    await database.close().catch((error: Error) => process.stderr.write(`berth: warning: ${error.message}\n`))
  }
}
