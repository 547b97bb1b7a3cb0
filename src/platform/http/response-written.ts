import type { FastifyReply } from 'fastify'

/**
 * Resolves once the reply's response has been handed to the operating system in full ('finish'),
 * or its connection is gone ('close'). A response still not written out after `timeoutMs` (a
 * client that does not read) has its connection closed, which frees what it still holds.
 */
export function responseWritten(reply: FastifyReply, timeoutMs: number): Promise<void> {
  const res = reply.raw
  if (res.writableFinished || res.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      res.off('finish', done)
      res.off('close', done)
      resolve()
    }
    const timer = setTimeout(() => {
      res.destroy()
      done()
    }, timeoutMs)
    timer.unref()
    res.once('finish', done)
    res.once('close', done)
  })
}
