import { refuseContractWordsInClient } from './helpers/go-client-words.ts'

// test/argocd-provider-replay.test.ts again, answering in the reference's enum words
// (BERTH_ENUM_WORDS=reference), the words qovery-client-go accepts (docs/enum-words.md): an answer
// holding a word of the contract's fails the call, as it would with the Go client.
process.env.BERTH_ENUM_WORDS = 'reference'
refuseContractWordsInClient()
await import('./argocd-provider-replay.test.ts')
