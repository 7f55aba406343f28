// Maps the tsconfig path aliases (@svc/*) to source files for jest.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function pathsToModuleNameMapper() {
  const tsconfig = JSON.parse(readFileSync(join(__dirname, '..', 'tsconfig.base.json'), 'utf8'));
  const mapper = {};
  for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
    mapper[`^${alias.replace(/[/@-]/g, (c) => `\\${c}`)}$`] = `<rootDir>/${target}`;
  }
  return mapper;
}

module.exports = { pathsToModuleNameMapper };
