import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { until } from './deployments.ts'

// A real S3 protocol server for the backups' tests: moto's server (Python, `moto_server`) on a
// loopback port of its own, its IAM set up so that signatures are checked: the first three
// requests (INITIAL_NO_AUTH_ACTION_COUNT) make a user with a policy and its access key, and from
// then on a wrong secret is refused as AWS refuses it (SignatureDoesNotMatch).

export interface MotoServer {
  endpoint: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** A client with the user's key. */
  client: S3Client
  createBucket(name: string): Promise<void>
  /** The keys of a bucket's objects. */
  keys(bucket: string): Promise<string[]>
  object(bucket: string, key: string): Promise<Buffer>
  close(): Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

const REGION = 'us-east-1'

/** Sends an IAM action unsigned (allowed for the first requests only), the service named in the credential scope. */
async function iam(endpoint: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260101/${REGION}/iam/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ ...params, Version: '2010-05-08' }).toString(),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`moto IAM ${params.Action}: ${res.status} ${text}`)
  return text
}

export async function startMoto(): Promise<MotoServer> {
  const port = await freePort()
  const endpoint = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, INITIAL_NO_AUTH_ACTION_COUNT: '3' },
    stdio: 'ignore',
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  try {
    // moto's own API answers without counting as an action.
    await until(
      async () => {
        try {
          return (await fetch(`${endpoint}/moto-api/`)).status
        } catch {
          return 0
        }
      },
      (status) => status === 200,
      { timeoutMs: 30_000, intervalMs: 100, what: 'moto_server' },
    )
    await iam(endpoint, { Action: 'CreateUser', UserName: 'berth' })
    const policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] })
    await iam(endpoint, { Action: 'PutUserPolicy', UserName: 'berth', PolicyName: 'everything', PolicyDocument: policy })
    const key = await iam(endpoint, { Action: 'CreateAccessKey', UserName: 'berth' })
    const accessKeyId = /<AccessKeyId>([^<]+)</.exec(key)![1]!
    const secretAccessKey = /<SecretAccessKey>([^<]+)</.exec(key)![1]!
    const client = new S3Client({ region: REGION, endpoint, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } })
    const body = async (bucket: string, key: string) => {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
      return Buffer.from(await answer.Body!.transformToByteArray())
    }
    return {
      endpoint,
      region: REGION,
      accessKeyId,
      secretAccessKey,
      client,
      async createBucket(name) {
        await client.send(new CreateBucketCommand({ Bucket: name }))
      },
      async keys(bucket) {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }))
        return (listed.Contents ?? []).map((object) => object.Key!).sort()
      },
      object: body,
      async close() {
        client.destroy()
        child.kill()
        await exited
      },
    }
  } catch (error) {
    child.kill()
    throw error
  }
}
