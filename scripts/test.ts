/**
 * `npm test` (docs/testing.md): bundles the test files, runs them with node's test runner in lanes
 * side by side, each lane on a fresh throwaway database of its own (TEST_DATABASE_URL's server,
 * default the local one), and ends with one summary of every lane and the 15 slowest files. A run
 * of the whole suite (no file named) also type-checks and lints beside the tests and fails when
 * those do. Fails when no test was executed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { createThrowawayDatabase, type ThrowawayDatabase } from '#src/platform/db/throwaway-database.ts'
import { bundleTestFiles, removeTestBundles } from './test-bundle.ts'
import { expectedSeconds, type Lane, lanesOf } from './test-lanes.ts'
import { type FileResult, readDurations, slowestFiles, summaryOf, sumSummaries, writeDurations } from './test-results.ts'

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const requested = process.argv.slice(2)
const wholeSuite = requested.length === 0
const files = wholeSuite
  ? readdirSync('test')
      .filter((f) => f.endsWith('.test.ts'))
      .sort()
      .map((f) => path.join('test', f))
  : requested.map((file) => path.normalize(file))
const reporter = process.env.CI ? 'tap' : 'spec'
const started = Date.now()

const children = new Set<ChildProcess>()
const databases = new Set<ThrowawayDatabase>()
let interrupted = false

/** Stops a child and what it started (a test file's `berth serve`, its embedded PostgreSQL): each child leads a process group. */
function stop(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGTERM')
  } catch {
    child.kill('SIGTERM')
  }
}

process.on('exit', () => {
  for (const child of children) stop(child)
})
// Interrupted (Ctrl-C, a CI time limit): stop the test processes and theirs, start no other, and
// leave no database or bundle behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true
    for (const child of children) stop(child)
    void Promise.allSettled([...databases].map((database) => database.drop()))
      .then(removeTestBundles)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  })
}

/** Runs a program to its end; resolves to its exit code and what it printed on both streams. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    children.add(child)
    const chunks: Buffer[] = []
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)))
    child.on('close', (code) => {
      children.delete(child)
      resolve({ code: code ?? 1, output: Buffer.concat(chunks).toString('utf8') })
    })
  })
}

const bin = (name: string) => path.join('node_modules', '.bin', name)

interface CheckResult {
  name: string
  code: number
  output: string
  seconds: number
}

/** The type checks one after the other, and the linter beside them: CPU the tests' waiting leaves idle. */
function startChecks(): Promise<CheckResult[]> {
  const timed = async (name: string, command: string, args: string[]): Promise<CheckResult> => {
    const from = Date.now()
    const { code, output } = await run(command, args)
    return { name, code, output, seconds: (Date.now() - from) / 1000 }
  }
  // TypeScript 7's native compiler (the npm alias typescript-7) checks the same rules several times
  // faster than 5.9's; 5.9 stays the `typescript` package because openapi-typescript needs its API.
  const tsc = path.join('node_modules', 'typescript-7', 'bin', 'tsc')
  const typecheck = async () => {
    const results: CheckResult[] = []
    for (const project of ['.', 'console', 'console/tsconfig.node.json']) {
      results.push(await timed(`tsc -p ${project}`, process.execPath, [tsc, '--noEmit', '-p', project]))
    }
    return results
  }
  return Promise.all([typecheck(), timed('biome check .', bin('biome'), ['check', '.'])]).then(([types, lint]) => [...types, lint])
}

/** Runs one bundled test file in node's test runner, in a process of its own. */
async function runFile(lane: Lane, source: string, bundled: string, databaseUrl: string): Promise<FileResult> {
  const from = Date.now()
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEST_DATABASE_SERVER_URL: serverUrl,
    BERTH_LOG_LEVEL: process.env.BERTH_LOG_LEVEL ?? 'silent',
  }
  const { code, output } = await run(process.execPath, ['--enable-source-maps', '--test', `--test-reporter=${reporter}`, bundled], env)
  const seconds = (Date.now() - from) / 1000
  const summary = summaryOf(output)
  // A file whose process failed without a failing test (a crash, a load error) still fails the run.
  if (code !== 0 && summary.fail === 0) summary.fail = 1
  process.stdout.write(`# file ${source} (lane ${lane.name}, ${seconds.toFixed(1)} s, exit ${code})\n${output}${output.endsWith('\n') ? '' : '\n'}`)
  return { file: source, lane: lane.name, seconds, code, summary }
}

/** Runs a lane's files, `lane.concurrency` at a time, the longest known first. */
async function runLane(
  lane: Lane,
  bundledOf: Map<string, string>,
  known: Record<string, number>,
): Promise<{ results: FileResult[]; seconds: number }> {
  const from = Date.now()
  const database = await createThrowawayDatabase(serverUrl, 'berth_test', { durableCommits: false })
  databases.add(database)
  try {
    const queue = [...lane.files].sort((a, b) => expectedSeconds(b, known) - expectedSeconds(a, known))
    const results: FileResult[] = []
    const worker = async () => {
      for (let file = queue.shift(); file !== undefined && !interrupted; file = queue.shift()) {
        const result = await runFile(lane, file, bundledOf.get(file)!, database.url)
        results.push(result)
        // Kept as they come, so that even a run cut short orders the next one.
        writeDurations([result])
      }
    }
    await Promise.all(Array.from({ length: lane.concurrency }, worker))
    return { results, seconds: (Date.now() - from) / 1000 }
  } finally {
    await database.drop().catch(() => {})
    databases.delete(database)
  }
}

const needsConsole = files.some((file) => /(^|\/)console[.-]/.test(path.basename(file)))
// The console's generated types and kinds table (scripts/console-generate.ts) come before what reads them: its type check and its tests.
const generated = wholeSuite || needsConsole ? await run('npm', ['run', 'generate:console']) : { code: 0, output: '' }
if (generated.code !== 0) {
  process.stdout.write(generated.output)
  process.stderr.write('npm run generate:console failed\n')
  process.exit(1)
}
const checks = wholeSuite ? startChecks() : Promise.resolve([])
const [consoleBuild, bundled] = await Promise.all([
  needsConsole ? run('npm', ['run', 'build:console']) : Promise.resolve({ code: 0, output: '' }),
  bundleTestFiles(files),
])
if (consoleBuild.code !== 0) {
  process.stdout.write(consoleBuild.output)
  process.stderr.write('npm run build:console failed\n')
  process.exit(1)
}
const bundledOf = new Map(files.map((file, i) => [file, bundled[i]!]))
const known = readDurations()
const lanes = lanesOf(files)
process.stdout.write(`# lanes: ${lanes.map((lane) => `${lane.name} (${lane.files.length} files, ${lane.concurrency} at a time)`).join(', ')}\n`)
const laneRuns = await Promise.all(lanes.map((lane) => runLane(lane, bundledOf, known))).finally(removeTestBundles)
const results = laneRuns.flatMap((lane) => lane.results)

const checkResults = await checks
let failed = false
for (const check of checkResults) {
  if (check.code !== 0) {
    failed = true
    process.stdout.write(`# ${check.name} failed (exit ${check.code}):\n${check.output}\n`)
  }
}

const total = sumSummaries(results.map((result) => result.summary))
const lines = [
  '# checks beside the tests:',
  ...checkResults.map((check) => `#   ${check.name}: ${check.code === 0 ? 'ok' : 'FAILED'} (${check.seconds.toFixed(1)} s)`),
  '# lanes:',
  ...lanes.map((lane, i) => `#   ${lane.name}: ${lane.files.length} files, ${lane.concurrency} at a time, ${laneRuns[i]!.seconds.toFixed(1)} s`),
  '# the 15 slowest files:',
  ...slowestFiles(results, 15).map((result) => `#   ${result.seconds.toFixed(1).padStart(7)} s  ${result.file} (${result.lane})`),
  `# all lanes: ${results.length} files`,
  `# tests ${total.tests}`,
  `# suites ${total.suites}`,
  `# pass ${total.pass}`,
  `# fail ${total.fail}`,
  `# cancelled ${total.cancelled}`,
  `# skipped ${total.skipped}`,
  `# todo ${total.todo}`,
  `# duration_ms ${Date.now() - started}`,
]
process.stdout.write(`${lines.filter((line) => wholeSuite || !line.startsWith('# checks')).join('\n')}\n`)
if (total.tests === 0) {
  process.stderr.write('no test was executed\n')
  failed = true
}
if (total.fail > 0 || total.cancelled > 0 || results.some((result) => result.code !== 0)) failed = true
process.exit(failed ? 1 : 0)
