/**
 * Runs work one at a time per key, in call order, within this process; different keys run at
 * once. For work that would otherwise queue on a database lock while holding a pooled connection:
 * waiting here instead leaves the connections to work that can proceed.
 */
export function createKeyedTurns() {
  const tails = new Map<string, Promise<void>>()
  return {
    /**
     * Runs `work` once the key's earlier turns are over. With `holdUntil`, the turn lasts until
     * the promise it returns (called once `work` has succeeded) settles: for results whose cost
     * lasts after `work`, such as a response still being written out.
     */
    run<T>(key: string, work: () => Promise<T>, holdUntil?: (result: T) => Promise<unknown>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve()
      const turn = previous.then(work)
      const tail = turn
        .then((result) => holdUntil?.(result))
        .then(
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
