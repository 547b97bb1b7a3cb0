/**
 * Runs work one at a time per key, in call order, within this process; different keys run at
 * once. For work that would otherwise queue on a database lock while holding a pooled connection:
 * waiting here instead leaves the connections to work that can proceed.
 */
export function createKeyedTurns() {
  const tails = new Map<string, Promise<void>>()
  return {
    run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve()
      const turn = previous.then(work)
      const tail = turn.then(
        () => {},
        () => {},
      )
      tails.set(key, tail)
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key)
      })
      return turn
    },
    /** Keys with work running or waiting, for tests. */
    get size() {
      return tails.size
    },
  }
}
