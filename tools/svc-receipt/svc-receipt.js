#!/usr/bin/env node
// `bin` entry of the offline receipt verifier (npx svc-receipt verify <receipt.json> --jwks <jwks.json>):
// runs cli.ts as compiled JavaScript through scripts/run-compiled.js.
const { join } = require('node:path');
process.argv.splice(2, 0, join(__dirname, 'cli.ts'));
require(join(__dirname, '..', '..', 'scripts', 'run-compiled.js'));
