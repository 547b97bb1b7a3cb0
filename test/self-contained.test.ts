import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { repoRoot } from './helpers/process.ts'

// The repository stands alone: a copy of its files, somewhere with nothing beside it, runs its
// tests and its benchmark, and none of its files points outside it. Only node_modules is shared
// with the checkout (linked, not installed again): it is what `npm ci` would bring.

/** The files of the checkout that a clone would hold: tracked ones, and new ones not ignored (work in progress). */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
  // A file deleted in the work tree but not yet from the index is not part of the repository any more.
  return listed.split('\0').filter((file) => file !== '' && existsSync(path.join(repoRoot, file)))
}

/** The folder beside the repository that its documents and benchmark once pointed into; in two parts, so that this file does not hold it. */
const SIBLING = ['..', 'shared'].join('/')

interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `node <args>` in `cwd` to completion; killed, and failed, after `timeoutMs`. */
function runNode(args: string[], cwd: string, env: Record<string, string | undefined>, timeoutMs: number): Promise<Finished> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8')
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM')
      reject(new Error(`node ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

// Its tests and its benchmark run side by side: each mostly waits on processes of its own.
describe('a copy of the repository with nothing beside it', { concurrency: true }, () => {
  const serverUrl = process.env.TEST_DATABASE_SERVER_URL
  let root = ''
  let copy = ''
  let files: string[] = []

  before(() => {
    if (!serverUrl) throw new Error('TEST_DATABASE_SERVER_URL is not set: run the tests with `npm test`')
    root = mkdtempSync(path.join(os.tmpdir(), 'berth-alone-'))
    copy = path.join(root, 'repo')
    files = repositoryFiles()
    for (const file of files) {
      const target = path.join(copy, file)
      mkdirSync(path.dirname(target), { recursive: true })
      if (lstatSync(path.join(repoRoot, file)).isSymbolicLink()) throw new Error(`${file} is a symbolic link: it may lead outside the repository`)
      copyFileSync(path.join(repoRoot, file), target)
    }
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'), 'dir')
  })

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true })
  })

  it('has no shared folder beside it, and no file that points to one', () => {
    assert.ok(files.length > 100, `only ${files.length} files listed`)
    assert.ok(!existsSync(path.join(copy, '..', 'shared')))
    const pointing = files.filter((file) => readFileSync(path.join(copy, file), 'latin1').includes(SIBLING))
    assert.deepEqual(pointing, [], `files that point at ${SIBLING}`)
  })

  it('runs its own tests: `scripts/test.ts` on an in-process app test and on `berth serve` processes', async () => {
    const result = await runNode(
      ['--import', 'tsx', 'scripts/test.ts', 'test/security-headers.test.ts', 'test/log-format.test.ts'],
      copy,
      // NODE_TEST_CONTEXT would make the copy's test runner report to this one instead of printing.
      { TEST_DATABASE_URL: serverUrl, DATABASE_URL: undefined, TEST_DATABASE_SERVER_URL: undefined, NODE_TEST_CONTEXT: undefined },
      // Bounds against a hang, not speed figures: the suite's other lanes share the CPU meanwhile.
      240_000,
    )
    assert.equal(result.code, 0, `the tests failed in the copy\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
    assert.match(result.stdout, /^. pass [1-9]\d*$/m)
    assert.match(result.stdout, /^. fail 0$/m)
  })

  it('runs its benchmark in quick mode (BERTH_BENCH_QUICK=1), Prism included, and prints its report and targets without writing over bench/results', async () => {
    const measured = readFileSync(path.join(copy, 'bench', 'results', 'latest.md'), 'utf8')
    const result = await runNode(['--import', 'tsx', 'bench/run.ts'], copy, { BERTH_BENCH_QUICK: '1', BENCH_DATABASE_URL: serverUrl }, 720_000)
    assert.equal(result.code, 0, `the benchmark failed in the copy\nstdout: ${result.stdout}\nstderr: ${result.stderr}`)
    assert.match(result.stdout, /^# Berth benchmark /m)
    assert.match(result.stdout, /^\| 6\. same route, Prism mock \| /m)
    assert.match(result.stdout, /Quick trial \(BERTH_BENCH_QUICK=1\)/)
    assert.match(result.stdout, /Prism mocked Berth's own OpenAPI document/)
    // Its targets are evaluated, each with a result, but a trial's misses do not fail it.
    assert.match(result.stdout, /^Targets, evaluated but not enforced: a quick trial measures nothing, judged on the run at log level warn\.$/m)
    assert.match(
      result.stdout,
      /^\| warn \| 1\. throughput ≥ 60% of the node:http ceiling \(median of rounds alternating the two\) \| [\d.]+% \(rounds: .*\) \| (PASS|FAIL) \|$/m,
    )
    assert.match(result.stdout, /^\| warn \| 7\. no stale page from the process that made the change .* \| (PASS|FAIL) \|$/m)
    assert.match(result.stderr, /quick trial: \d+ targets evaluated/)
    assert.equal(readFileSync(path.join(copy, 'bench', 'results', 'latest.md'), 'utf8'), measured, 'the quick run replaced the measured results')
  })
})
