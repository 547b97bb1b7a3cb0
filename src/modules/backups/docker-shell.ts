import type { Duplex, Readable } from 'node:stream'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type Docker from 'dockerode'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import { type DatabaseShell, keptText, type ShellCommand, type ShellOutcome } from './database-shell.ts'

// The database's container in the Docker engine, reached through the exec API (dockerode): the
// program's argv and environment go as the API's fields, its output comes back multiplexed on one
// connection (8-byte frame headers), read here with backpressure so that a slow destination slows
// the dump instead of filling Berth's memory.

/** Splits Docker's multiplexed stream: stdout frames pass on, stderr frames go to `onStderr`. */
export function demultiplexed(onStderr: (chunk: Buffer) => void): Transform {
  let pending: Buffer = Buffer.alloc(0)
  let stream = 0
  let left = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let data: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk
      pending = Buffer.alloc(0)
      while (data.length > 0) {
        if (left === 0) {
          if (data.length < 8) {
            pending = data
            break
          }
          stream = data[0]!
          left = data.readUInt32BE(4)
          data = data.subarray(8)
          continue
        }
        const part = data.subarray(0, left)
        left -= part.length
        data = data.subarray(part.length)
        if (stream === 2) onStderr(Buffer.from(part))
        else if (stream === 1) this.push(part)
      }
      done()
    },
  })
}

/** Why no container can be reached, for the backup's error. */
export class NoRunningContainer extends Error {}

/** The running container of a database service, found by Berth's service label. */
export async function databaseContainer(docker: Docker, serviceId: string): Promise<Docker.Container> {
  const found = await docker.listContainers({ filters: { label: [`${LABELS.service}=${serviceId}`], status: ['running'] } })
  if (found.length === 0) throw new NoRunningContainer('the database has no running container: deploy it (or start it) first')
  return docker.getContainer(found[0]!.Id)
}

const envOf = (command: ShellCommand) => Object.entries(command.env ?? {}).map(([key, value]) => `${key}=${value}`)

/** The shell of one database's container. */
export function dockerShell(docker: Docker, serviceId: string): DatabaseShell {
  async function start(command: ShellCommand, withStdin: boolean, signal: AbortSignal) {
    const container = await databaseContainer(docker, serviceId)
    const exec = await container.exec({ Cmd: command.argv, Env: envOf(command), AttachStdout: true, AttachStderr: true, AttachStdin: withStdin })
    const connection = (await exec.start({ hijack: true, stdin: withStdin, abortSignal: signal } as Docker.ExecStartOptions)) as Duplex
    const stderr = keptText()
    const stdout = demultiplexed((chunk) => stderr.add(chunk))
    const aborted = () => connection.destroy(new Error('aborted'))
    signal.addEventListener('abort', aborted, { once: true })
    const outcome = async (): Promise<ShellOutcome> => {
      signal.removeEventListener('abort', aborted)
      const inspected = await exec.inspect()
      return { exitCode: inspected.ExitCode ?? -1, stderr: stderr.text() }
    }
    return { connection, stdout, outcome }
  }

  /** Reads a run's stdout (kept), then its outcome. */
  async function collected(connection: Duplex, stdout: Transform, outcome: () => Promise<ShellOutcome>) {
    const kept = keptText()
    stdout.on('data', (chunk: Buffer) => kept.add(chunk))
    await pipeline(connection, stdout)
    return { ...(await outcome()), stdout: kept.text() }
  }

  return {
    async stream(command, signal) {
      const { connection, stdout, outcome } = await start(command, false, signal)
      const ended = new Promise<void>((resolve, reject) => {
        stdout.once('end', resolve)
        stdout.once('error', reject)
        connection.once('error', reject)
      })
      connection.pipe(stdout)
      connection.once('error', (error) => stdout.destroy(error))
      return { stdout, finished: ended.then(outcome) }
    },

    async feed(command, input: Readable, signal) {
      const { connection, stdout, outcome } = await start(command, true, signal)
      const read = collected(connection, stdout, outcome)
      // The program's stdin closes when the write side does (a half-close of the hijacked connection).
      const written = new Promise<void>((resolve, reject) => {
        input.once('end', resolve)
        input.once('error', reject)
      })
      input.pipe(connection)
      await written.catch((error) => {
        connection.destroy(error)
        throw error
      })
      return read
    },

    async run(command, signal) {
      const { connection, stdout, outcome } = await start(command, false, signal)
      return collected(connection, stdout, outcome)
    },
  }
}
