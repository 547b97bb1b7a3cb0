import { createRequire } from 'node:module'
import type { AxiosResponse, AxiosStatic } from 'axios'
import { ENUM_WORD_PAIRS } from '#src/platform/http/enum-words/enum-word-pairs.ts'

// The Go client (qovery-client-go, which the Terraform provider and the CLI are built on) refuses
// an answer holding an enum word it does not know. The official TypeScript client checks nothing;
// this makes its calls fail as the Go client's would, on the contract's words the reference
// document does not have. Any string value equal to one counts (but a variable's `value`, free text):
// the tests name nothing so.

const CONTRACT_ONLY = new Set(ENUM_WORD_PAIRS.map((pair) => pair.contract))

/** Where `value` holds a contract-only word, as a JSON pointer and the word; undefined: nowhere. */
export function contractWordIn(value: unknown, path = ''): { path: string; word: string } | undefined {
  if (typeof value === 'string') return CONTRACT_ONLY.has(value) ? { path: path || '/', word: value } : undefined
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, item] of Object.entries(value)) {
    // A variable's value is free text to the Go client too (QOVERY_SERVICE_TYPE's is the kind's word).
    if (key === 'value' && typeof item === 'string') continue
    const found = contractWordIn(item, `${path}/${key}`)
    if (found) return found
  }
  return undefined
}

/**
 * Makes every answer the official client reads fail when it holds a contract-only word. The client
 * is CommonJS: its axios is the CommonJS one, which `import` would not give.
 */
export function refuseContractWordsInClient(): void {
  const axios = createRequire(import.meta.url)('axios') as AxiosStatic
  axios.interceptors.response.use((response: AxiosResponse) => {
    const found = contractWordIn(response.data)
    if (found) {
      throw new Error(
        `${response.config.method?.toUpperCase()} ${response.config.url} answered ${found.word} at ${found.path}, which the Go client refuses`,
      )
    }
    return response
  })
}

/** The word an answer carries for the contract's `word` under this process's BERTH_ENUM_WORDS: a test's expectation in either setting. */
export function servedWord(word: string): string {
  return process.env.BERTH_ENUM_WORDS === 'reference' ? (ENUM_WORD_PAIRS.find((pair) => pair.contract === word)?.reference ?? word) : word
}
