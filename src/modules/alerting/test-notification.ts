import { fetch } from 'undici'
import { createGuardedAgent, gitApiUrlProblem, resolveHost } from '#src/modules/git-providers/address-guard.ts'
import type { EmailSettings } from './alerting.tables.ts'
import { sendMail } from './smtp-client.ts'

// A receiver's test notification (validate…Receiver): sent by Berth itself, so that the answer can
// say whether it went; through the address guard unless BERTH_ALLOW_PRIVATE_URLS is set.

const SEND_TIMEOUT_MS = 10_000

export type TestReceiver =
  | { type: 'SLACK'; name: string; webhookUrl: string }
  | { type: 'EMAIL'; name: string; settings: EmailSettings; password: string | undefined }

/** Why a receiver's address may not be used; undefined when it may. Checked when it is stored. */
export function receiverAddressProblem(
  receiver: { type: 'SLACK'; webhookUrl: string } | { type: 'EMAIL'; smarthost: string },
  allowPrivate: boolean,
) {
  if (allowPrivate) return undefined
  if (receiver.type === 'SLACK') return gitApiUrlProblem(new URL(receiver.webhookUrl))
  const host = receiver.smarthost.replace(/:\d+$/, '')
  return gitApiUrlProblem(new URL(`https://${host}`))
}

/** Sends it; the failure's reason, or undefined when it went. */
export async function sendTestNotification(receiver: TestReceiver, message: string, allowPrivate: boolean): Promise<string | undefined> {
  const text = `Berth test notification for receiver "${receiver.name}": ${message}`
  try {
    if (receiver.type === 'SLACK') {
      const res = await fetch(receiver.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        dispatcher: createGuardedAgent(allowPrivate),
        redirect: 'error',
      })
      await res.body?.cancel()
      return res.ok ? undefined : `the webhook answered ${res.status}`
    }
    const [host, port] = receiver.settings.smarthost.split(/:(?=\d+$)/) as [string, string]
    if (!allowPrivate) {
      const check = await resolveHost(host)
      if (!check.ok) return check.reason
    }
    await sendMail({
      host,
      port: Number(port),
      requireTls: receiver.settings.requireTls,
      username: receiver.settings.authUsername ?? undefined,
      password: receiver.password,
      from: receiver.settings.from,
      to: receiver.settings.to,
      subject: `Berth test notification (${receiver.name})`,
      text,
    })
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
