import type { ApiTokensRepository } from './api-tokens.repository.ts'

/**
 * Remembers when tokens were last used and writes that back in batches, so that authenticating a
 * request never costs a database write. Pending times are merged into listings by this process;
 * other replicas see them after the next flush.
 */
export function createTokenUsageTracker(repo: ApiTokensRepository, flushEveryMs: number, onError: (error: unknown) => void) {
  let pending = new Map<string, Date>()
  let timer: NodeJS.Timeout | undefined
  // A database outage fails every flush until it ends: told once, not at every retry.
  let failing = false

  async function flush(): Promise<void> {
    if (pending.size === 0) return
    const batch = pending
    pending = new Map()
    try {
      const later = await repo.recordUsage(batch)
      for (const id of later) if (!pending.has(id)) pending.set(id, batch.get(id)!)
      failing = false
    } catch (error) {
      // Keep the times for the next attempt unless a newer use has replaced them meanwhile.
      for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at)
      if (!failing) onError(error)
      failing = true
    }
  }

  return {
    touch(apiTokenId: string, at: Date = new Date()): void {
      pending.set(apiTokenId, at)
    },
    pendingFor(apiTokenId: string): Date | undefined {
      return pending.get(apiTokenId)
    },
    flush,
    start(): void {
      timer ??= setInterval(() => void flush(), flushEveryMs)
      timer.unref()
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
    },
  }
}

export type TokenUsageTracker = ReturnType<typeof createTokenUsageTracker>
