// The loopback GitHub of the branch-listing scenarios, in a process of its own: the tests' fake
// provider with one repository of many branches. Usage: fake-github.ts <repository> <branches> <token>.
import { manyBranches, startFakeProvider } from '../test/helpers/fake-git-providers.ts'

const [repository, branches, token] = process.argv.slice(2)
if (!repository || !branches || !token) throw new Error('usage: fake-github <owner/repo> <branches> <token>')
const github = await startFakeProvider('github')
github.repositories.set(repository, manyBranches(Number(branches)))
github.tokens.add(token)
// It records every request it sees; a benchmark makes too many to keep.
setInterval(() => github.requests.splice(0), 1_000).unref()
process.stdout.write(`fake github listening on ${github.url}\n`)
process.on('SIGTERM', () => {
  github.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
})
