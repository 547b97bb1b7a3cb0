import { type TStringOptions, Type } from 'typebox'
import { Nullable } from '#src/platform/http/common-schemas.ts'

const Port = Type.Integer({ minimum: 1, maximum: 65_535 })

/** The `type` of a probe as an application's or a job's request gives it; `path` and `scheme` bound (and may default) the http probe's. */
export const probeTypeRequest = (path: TStringOptions, scheme: TStringOptions) =>
  Type.Object(
    {
      tcp: Type.Optional(
        Nullable(
          Type.Object({ port: Type.Optional(Port), host: Type.Optional(Nullable(Type.String({ maxLength: 255 }))) }, { additionalProperties: false }),
        ),
      ),
      http: Type.Optional(
        Nullable(
          Type.Object(
            { path: Type.Optional(Type.String(path)), scheme: Type.Optional(Type.String(scheme)), port: Type.Optional(Port) },
            { additionalProperties: false },
          ),
        ),
      ),
      exec: Type.Optional(
        Nullable(
          Type.Object({ command: Type.Array(Type.String({ maxLength: 4096 }), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
        ),
      ),
      grpc: Type.Optional(
        Nullable(
          Type.Object(
            { service: Type.Optional(Nullable(Type.String({ maxLength: 255 }))), port: Type.Optional(Port) },
            { additionalProperties: false },
          ),
        ),
      ),
    },
    { additionalProperties: false },
  )
