#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: there is no build step to forget.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
