import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import lockfile from 'proper-lockfile'
import { buildImage, docker } from './docker.ts'

// Database images for the tests, from real binaries (no outside registry is reachable): one Debian
// bookworm root made with `debootstrap --variant=minbase` from the machine's Debian mirror, holding
// PostgreSQL 15 (server and client tools of the same major), MariaDB and Redis, imported into the
// Docker engine once per machine under a tag made from what it holds. Each engine gets a tag of its
// own on it whose entrypoint starts that engine as its official image does (the environment
// variables Berth gives it). MongoDB is not in Debian: no image here.

const run = promisify(execFile)

const SUITE = 'bookworm'
const PACKAGES = ['postgresql-15', 'postgresql-client-15', 'mariadb-server', 'mariadb-client', 'redis-server', 'redis-tools', 'util-linux']

/** Starts PostgreSQL as the official image does: POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB, data in PGDATA. */
const POSTGRES_ENTRYPOINT = `#!/bin/sh
set -eu
PGDATA=\${PGDATA:-/var/lib/postgresql/data}
mkdir -p "$PGDATA" /run/postgresql
chown -R postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\\n' "$POSTGRES_PASSWORD" > /run/postgresql/pwfile
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/run/postgresql/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /run/postgresql/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  if [ "\${POSTGRES_DB:-postgres}" != postgres ]; then
    echo "CREATE DATABASE \\"$POSTGRES_DB\\"" | as_postgres postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA"
`

/** Starts MariaDB as the official mysql image does: MYSQL_ROOT_PASSWORD, MYSQL_USER and MYSQL_PASSWORD. */
const MYSQL_ENTRYPOINT = `#!/bin/sh
set -eu
mkdir -p /var/lib/mysql /run/mysqld
chown -R mysql:mysql /var/lib/mysql /run/mysqld
if [ ! -d /var/lib/mysql/mysql ]; then
  mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db >/dev/null
fi
cat > /run/mysqld/init.sql <<EOF
ALTER USER 'root'@'localhost' IDENTIFIED BY '$MYSQL_ROOT_PASSWORD';
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$MYSQL_ROOT_PASSWORD';
GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS '$MYSQL_USER'@'%' IDENTIFIED BY '$MYSQL_PASSWORD';
FLUSH PRIVILEGES;
EOF
chown mysql /run/mysqld/init.sql
exec mariadbd --user=mysql --datadir=/var/lib/mysql --bind-address=0.0.0.0 --init-file=/run/mysqld/init.sql
`

/** Runs the command Berth gives (redis-server and its flags) in /data, as the official redis image does. */
const REDIS_ENTRYPOINT = `#!/bin/sh
set -eu
cd /data
exec "$@"
`

/** The engines the image holds: Berth's engine image name, the version tag Berth asks for, the entrypoint. */
export const ENGINE_TAGS = {
  POSTGRESQL: { image: 'postgres', version: '15', entrypoint: POSTGRES_ENTRYPOINT, cmd: null },
  MYSQL: { image: 'mysql', version: '8.0', entrypoint: MYSQL_ENTRYPOINT, cmd: null },
  REDIS: { image: 'redis', version: '7.0', entrypoint: REDIS_ENTRYPOINT, cmd: '["redis-server"]' },
} as const

/** The machine's Debian mirror (its apt sources), else Debian's own. */
async function debianMirror(): Promise<string> {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    const text = await readFile(file, 'utf8').catch(() => '')
    const deb822 = /^URIs:\s*(\S+\/debian)\s*$/m.exec(text)
    if (deb822) return deb822[1]!
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\s/m.exec(text)
    if (oneLine) return oneLine[1]!
  }
  return 'http://deb.debian.org/debian'
}

const contentTag = (mirror: string) =>
  createHash('sha256')
    .update(JSON.stringify([SUITE, mirror, PACKAGES, ENGINE_TAGS]))
    .digest('hex')
    .slice(0, 12)

async function hasImage(reference: string): Promise<boolean> {
  return docker
    .getImage(reference)
    .inspect()
    .then(
      () => true,
      () => false,
    )
}

/** The root filesystem, made with debootstrap and imported as `reference`. Minutes, once per machine. */
async function importRoot(reference: string, mirror: string): Promise<void> {
  const root = path.join(os.tmpdir(), `berth-engines-root-${process.pid}`)
  await rm(root, { recursive: true, force: true })
  try {
    await run('debootstrap', ['--variant=minbase', `--include=${PACKAGES.join(',')}`, SUITE, root, mirror], { maxBuffer: 64 * 1024 * 1024 })
    // The clusters the packages made, and the downloaded packages: not needed in the image.
    await run('rm', [
      '-rf',
      path.join(root, 'var/lib/postgresql/15'),
      path.join(root, 'var/cache/apt/archives'),
      path.join(root, 'var/lib/apt/lists'),
    ])
    await run('sh', ['-c', 'tar -C "$1" -c . | docker import - "$2"', 'import', root, reference], { maxBuffer: 16 * 1024 * 1024 })
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

/**
 * The prefix to give BERTH_DOCKER_DATABASE_IMAGES: under it, `postgres:15`, `mysql:8.0` (MariaDB)
 * and `redis:7.0` exist in the engine. Built when missing (one process at a time on the machine).
 */
export async function databaseEngineImages(): Promise<string> {
  const mirror = await debianMirror()
  const prefix = `berth-test/engines-${contentTag(mirror)}`
  const tagged = async () => {
    for (const engine of Object.values(ENGINE_TAGS)) if (!(await hasImage(`${prefix}/${engine.image}:${engine.version}`))) return false
    return true
  }
  if (await tagged()) return prefix
  const lockDir = path.join(os.tmpdir(), 'berth-engine-images')
  await mkdir(lockDir, { recursive: true })
  const lockTarget = path.join(lockDir, 'build')
  if (!existsSync(lockTarget)) await writeFile(lockTarget, '')
  const release = await lockfile.lock(lockTarget, {
    stale: 30 * 60_000,
    update: 10_000,
    retries: { retries: 400, minTimeout: 2_000, maxTimeout: 5_000 },
  })
  try {
    if (await tagged()) return prefix
    const base = `${prefix}/root:1`
    if (!(await hasImage(base))) await importRoot(base, mirror)
    for (const engine of Object.values(ENGINE_TAGS)) {
      const dockerfile = [
        `FROM ${base}`,
        'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'ENV LANG=C.UTF-8',
        'COPY entrypoint.sh /usr/local/bin/entrypoint.sh',
        'WORKDIR /data',
        'ENTRYPOINT ["/bin/sh", "/usr/local/bin/entrypoint.sh"]',
        ...(engine.cmd ? [`CMD ${engine.cmd}`] : []),
        '',
      ].join('\n')
      await buildImage(`${prefix}/${engine.image}:${engine.version}`, dockerfile, { 'entrypoint.sh': engine.entrypoint })
    }
    return prefix
  } finally {
    await release()
  }
}
