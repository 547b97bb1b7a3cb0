import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

// Prometheus' own judgement of an alert rule: `promtool check rules` on a file holding it alone.
// Undefined when it passes; otherwise Prometheus' message.

const CHECK_TIMEOUT_MS = 10_000

export async function promqlProblem(promtoolPath: string, expression: string, forSeconds: number): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-rule-'))
  try {
    const file = path.join(dir, 'rule.yml')
    const rules = { groups: [{ name: 'check', rules: [{ alert: 'check', expr: expression, for: `${forSeconds}s` }] }] }
    await writeFile(file, JSON.stringify(rules))
    return await new Promise<string | undefined>((resolve, reject) => {
      execFile(promtoolPath, ['check', 'rules', file], { timeout: CHECK_TIMEOUT_MS }, (error, stdout, stderr) => {
        if (!error) return resolve(undefined)
        if (typeof error.code !== 'number') return reject(new Error(`could not run ${promtoolPath}: ${error.message}`))
        const output = `${stderr}\n${stdout}`
        const line = output.split('\n').find((l) => l.includes('"check":')) ?? output.trim()
        resolve(line.replace(/^.*"check":\s*/, '').trim())
      })
    })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
