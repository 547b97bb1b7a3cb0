import type { Response } from 'undici'

/**
 * An outbound call's answer as text, or undefined (the rest left unread) once it exceeds
 * `maxBytes`: a server we call cannot make us hold more than that.
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength
    if (size > maxBytes) {
      await response.body?.cancel()
      return undefined
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
