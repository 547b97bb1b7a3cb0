/** The images a Dockerfile makes the engine pull, as the build's address guard reads them (base-images.ts). */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { baseImages } from '#src/modules/executors/docker/base-images.ts'

describe("a Dockerfile's images", () => {
  it('reads FROM lines, their flags, stage names and global ARG defaults', () => {
    const dockerfile = [
      '# syntax comment',
      'ARG BASE=registry.example.com/base',
      'ARG TAG',
      `FROM --platform=linux/amd64 \${BASE}:\${TAG:-1.2} AS build`,
      'RUN make',
      'from build as test',
      'FROM scratch',
      'FROM $BASE:2',
      'COPY --from=build /out /out',
      'COPY --from=0 /out /again',
      'COPY --from=10.0.0.9:5000/tools:1 /bin/t /t',
      'RUN --mount=type=cache,target=/c \\',
      '    --mount=type=bind,from=evil.internal:5000/x:1,target=/x true',
    ].join('\n')
    assert.deepEqual(baseImages(dockerfile), [
      'registry.example.com/base:1.2',
      'registry.example.com/base:2',
      '10.0.0.9:5000/tools:1',
      'evil.internal:5000/x:1',
    ])
  })

  it('leaves an ARG declared after the first FROM to its stage, as the engine does', () => {
    assert.deepEqual(baseImages(`FROM alpine:3\nARG LATER=10.0.0.1/x\nFROM \${LATER:-busybox}:1\n`), ['alpine:3', 'busybox:1'])
  })
})
