#!/usr/bin/env node
// `bin` entry of the offline receipt verifier (npx svc-receipt verify <receipt.json> --jwks <jwks.json>):
// runs cli.ts through SWC with the workspace's path aliases, as scripts/run-ts.js does.
const { join } = require('node:path');
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || join(__dirname, '..', '..', 'tsconfig.json');
require('@swc-node/register');
require('reflect-metadata');
require('./cli.ts');
