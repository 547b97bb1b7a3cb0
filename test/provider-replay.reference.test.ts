import { refuseContractWordsInClient } from './helpers/go-client-words.ts'

// test/provider-replay.test.ts again, answering in the reference's enum words (BERTH_ENUM_WORDS=reference): the
// words the Go client of the Terraform provider and the CLI accepts (docs/enum-words.md). An answer
// holding a word of the contract's fails the call, as it would with the Go client.
process.env.BERTH_ENUM_WORDS = 'reference'
refuseContractWordsInClient()
await import('./provider-replay.test.ts')
