#!/usr/bin/env node
// `npx svc-audit verify --region us`: runs the TypeScript CLI (cli.ts) as compiled JavaScript through
// scripts/run-compiled.js. Referenced by the "bin" entry of package.json.
const { join } = require('node:path');
process.argv.splice(2, 0, join(__dirname, 'cli.ts'));
require(join(__dirname, '..', '..', 'scripts', 'run-compiled.js'));
