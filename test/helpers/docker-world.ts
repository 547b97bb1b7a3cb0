import assert from 'node:assert/strict'
import { LABELS } from '#src/modules/executors/docker/docker-objects.ts'
import type { TestApp } from './app.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls } from './deployments.ts'
import { docker, type LoopbackRegistry, removeEnvironments, startRegistry } from './docker.ts'
import { factories } from './factories.ts'

// What the tests that deploy into the real Docker engine set up alike: the app with the Docker
// executor, an environment whose organization knows the loopback registry, and a web container
// of one of its images with a readiness probe.

/** The settings of an app that deploys with the Docker executor, publishing on loopback, not rate limited. */
export const DOCKER_APP_ENV = {
  BERTH_EXECUTOR: 'docker',
  BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
  BERTH_GIT_ALLOW_PRIVATE_URLS: 'true',
  // A pull or a readiness wait may outlast the default lease.
  BERTH_RUNNER_LEASE_MS: '30000',
  BERTH_RATE_LIMIT_PER_CREDENTIAL: '0',
  BERTH_RATE_LIMIT_PER_ADDRESS: '0',
}

/** The app with an in-process runner deploying into the Docker engine; `env` adds to or overrides DOCKER_APP_ENV. */
export function createDockerDeploymentsApp(env: Record<string, string> = {}): Promise<DeploymentsTestApp> {
  return createDeploymentsApp(0, { ...DOCKER_APP_ENV, ...env })
}

/** A test file's Docker set-up: the loopback registry with `pushImages` done on it, then the Docker app with `env`. */
export async function startDockerSuite(env: Record<string, string>, pushImages: (registry: LoopbackRegistry) => Promise<void>) {
  const registry = await startRegistry()
  try {
    await pushImages(registry)
    const t = await createDockerDeploymentsApp(env)
    return { registry, t, calls: deploymentCalls(t.app) }
  } catch (error) {
    await registry.close()
    throw error
  }
}

/** Ends what startDockerSuite started (either may be unset when it failed), removing the environments' containers first. */
export async function stopDockerSuite(suite: { t?: TestApp; registry?: LoopbackRegistry }, environments: string[]) {
  await removeEnvironments(environments).catch(() => undefined)
  await suite.t?.close()
  await suite.registry?.close()
}

/**
 * An environment with tokens whose organization has the loopback registry (as `registryId`).
 * The environment's id goes into `environments`, for the test's cleanup.
 */
export async function registryWorld(t: TestApp, calls: DeploymentCalls, registry: LoopbackRegistry, environments: string[]) {
  const w = await factories(t.db).environmentWithTokens()
  environments.push(w.environment.id)
  const created = await calls.inject('POST', `/organization/${w.organization.id}/containerRegistry`, w.tokens.admin.authorization, {
    name: 'loopback',
    kind: 'GENERIC_CR',
    url: `http://${registry.host}`,
    config: { username: registry.username, password: registry.password },
  })
  assert.equal(created.statusCode, 201, created.body)
  return { ...w, registryId: created.json().id as string }
}

export type RegistryWorld = Awaited<ReturnType<typeof registryWorld>>

/** A readiness probe every second: `http` GETs / on 8080, `tcp` connects to 8080. */
export function readinessProbe(type: 'http' | 'tcp', failureThreshold: number) {
  return {
    type: type === 'http' ? { http: { path: '/', port: 8080 } } : { tcp: { port: 8080 } },
    initial_delay_seconds: 0,
    period_seconds: 1,
    timeout_seconds: 1,
    failure_threshold: failureThreshold,
  }
}

/** The body of a container named web: one instance of the registry's `imageName:tag`, port 8080 published as 443, ready by `probe`. */
export function webContainerRequest(
  registryId: string,
  image: { imageName: string; tag: string },
  probe: ReturnType<typeof readinessProbe>,
  extra: object = {},
) {
  return {
    name: 'web',
    registry_id: registryId,
    image_name: image.imageName,
    tag: image.tag,
    arguments: [],
    cpu: 250,
    memory: 64,
    min_running_instances: 1,
    max_running_instances: 1,
    ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
    healthchecks: { readiness_probe: probe },
    ...extra,
  }
}

/** Creates a container in the world's environment (with its write token); returns its id. */
export async function createContainer(calls: DeploymentCalls, w: RegistryWorld, body: object): Promise<string> {
  const created = await calls.inject('POST', `/environment/${w.environment.id}/container`, w.tokens.write.authorization, body)
  assert.equal(created.statusCode, 201, created.body)
  return created.json().id as string
}

/** Creates a plain variable of a container; returns its id. */
export async function containerVariable(calls: DeploymentCalls, authorization: string, containerId: string, key: string, value: string) {
  const res = await calls.inject('POST', '/variable', authorization, {
    key,
    value,
    is_secret: false,
    variable_scope: 'CONTAINER',
    variable_parent_id: containerId,
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().id as string
}

/** The engine's containers of a service (stopped ones too with `all`). */
export const serviceInstances = (serviceId: string, options: { all?: boolean } = {}) =>
  docker.listContainers({ ...(options.all ? { all: true } : {}), filters: { label: [`${LABELS.service}=${serviceId}`] } })

/** The body a URL answers with, trimmed; undefined when it does not answer 2xx within 2 s. */
export async function fetchText(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) })
    return res.ok ? (await res.text()).trim() : undefined
  } catch {
    return undefined
  }
}
