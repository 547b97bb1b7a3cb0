import type { IacEngine } from './iac.schemas.ts'
import type { IacConfig } from './iac.types.ts'
import { DATA_DIR } from './iac-commands.ts'

// The engines and versions a terraform service may name, and the images they run in.

/** What listTerraformVersions answers: the versions Berth offers of each engine, newest first. */
export const IAC_VERSIONS: readonly { engine: IacEngine; version: string }[] = [
  { engine: 'OPEN_TOFU', version: '1.10.6' },
  { engine: 'OPEN_TOFU', version: '1.9.4' },
  { engine: 'OPEN_TOFU', version: '1.8.10' },
  { engine: 'OPEN_TOFU', version: '1.7.10' },
  { engine: 'OPEN_TOFU', version: '1.6.3' },
  { engine: 'TERRAFORM', version: '1.13.4' },
  { engine: 'TERRAFORM', version: '1.12.2' },
  { engine: 'TERRAFORM', version: '1.9.8' },
  { engine: 'TERRAFORM', version: '1.5.7' },
]

/** BERTH_IAC_IMAGES' default: the engines' official images, `{version}` replaced by the service's version. */
export const DEFAULT_IAC_IMAGES = 'OPEN_TOFU=ghcr.io/opentofu/opentofu:{version},TERRAFORM=docker.io/hashicorp/terraform:{version}'

/**
 * The image a run of `engine` at `version` builds from, by BERTH_IAC_IMAGES
 * (`ENGINE=image-with-{version},…`); undefined when the setting names no image for the engine.
 */
export function engineImage(setting: string, engine: IacEngine, version: string): string | undefined {
  for (const entry of setting.split(',')) {
    const [name, template] = entry.split('=', 2).map((part) => part?.trim())
    if (name === engine && template) return template.replaceAll('{version}', version)
  }
  return undefined
}

/** The engine's program name in its image. */
export const engineProgram = (engine: IacEngine) => (engine === 'OPEN_TOFU' ? 'tofu' : 'terraform')

/** What every command's environment holds besides the service's variables: its Terraform variables as TF_VAR_…, secrets opened, and the engine's automation settings. */
export function engineEnvironment(config: Pick<IacConfig, 'tfVars'>, open: (sealed: string) => string): Record<string, string> {
  const environment: Record<string, string> = {}
  for (const variable of config.tfVars) environment[`TF_VAR_${variable.key}`] = variable.secret ? open(variable.sealed) : variable.value
  return { ...environment, TF_IN_AUTOMATION: '1', TF_INPUT: '0', TF_DATA_DIR: `${DATA_DIR}/.terraform` }
}
