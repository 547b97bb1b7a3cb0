// test/provider-replay.test.ts again, answering in the reference's enum words (BERTH_ENUM_WORDS=reference): the
// words the Go client of the Terraform provider and the CLI accepts (docs/enum-words.md).
process.env.BERTH_ENUM_WORDS = 'reference'
await import('./provider-replay.test.ts')
