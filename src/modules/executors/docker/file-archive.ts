import { pack } from 'tar-stream'

/** A file a variable delivers, written into a container before it starts. */
export interface DeliveredFile {
  path: string
  content: string
}

/** A tar archive of the files, for the engine's archive upload (at the container's root). */
export function archiveOf(files: DeliveredFile[]): Promise<Buffer> {
  const tar = pack()
  for (const file of files) tar.entry({ name: file.path.replace(/^\/+/, ''), mode: 0o644 }, file.content)
  tar.finalize()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    tar.on('data', (chunk) => chunks.push(chunk as Buffer))
    tar.on('end', () => resolve(Buffer.concat(chunks)))
    tar.on('error', reject)
  })
}
