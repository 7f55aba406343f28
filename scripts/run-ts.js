#!/usr/bin/env node
// Runs a TypeScript entry point without a build step: SWC transpiles with decorator metadata
// (which NestJS needs) and resolves the tsconfig path aliases.
const { join, resolve } = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
require('reflect-metadata');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(entry), ...args];
require(resolve(entry));
