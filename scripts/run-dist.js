#!/usr/bin/env node
// Runs a compiled entry point from dist/ (after `npm run build`), resolving the @svc/* aliases
// to their compiled files. Used by the container image.
const { join, resolve } = require('node:path');
const tsConfigPaths = require('tsconfig-paths');
const base = require('../tsconfig.base.json');
const paths = {};
for (const [alias, [target]] of Object.entries(base.compilerOptions.paths)) paths[alias] = [target.replace(/\.ts$/, '.js')];
tsConfigPaths.register({ baseUrl: join(__dirname, '..', 'dist'), paths });
require('reflect-metadata');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: run-dist <dist/file.js> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(entry), ...args];
require(resolve(entry));
