// ESLint rule `local/no-import-cycle`: refuses a relative import (type-only ones included) from which
// the importing file can be reached again through relative imports. Cycles between projects are
// refused by @nx/enforce-module-boundaries; this rule covers the files inside one project.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

const RELATIVE_IMPORT = /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]*)['"]/g;

/** Relative imports of each file on disk, read once per lint run. */
const importsOnDisk = new Map();

function resolveImport(from, specifier) {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, `${base}/index.ts`, base]) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function importsOf(file) {
  let imports = importsOnDisk.get(file);
  if (!imports) {
    const source = readFileSync(file, 'utf8');
    imports = [...source.matchAll(RELATIVE_IMPORT)].map((match) => resolveImport(file, match[1])).filter(Boolean);
    importsOnDisk.set(file, imports);
  }
  return imports;
}

/** A path of relative imports from `start` back to `target`, or undefined. */
function pathBack(start, target) {
  const seen = new Set();
  const stack = [[start, [start]]];
  while (stack.length > 0) {
    const [file, path] = stack.pop();
    if (file === target) return path;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const next of importsOf(file)) if (!seen.has(next)) stack.push([next, [...path, next]]);
  }
  return undefined;
}

const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuses a relative import that closes a cycle of imports between files' },
    schema: [],
    messages: { cycle: 'Import cycle: {{chain}}' },
  },
  create(context) {
    const file = context.filename;
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = resolveImport(file, specifier);
      if (!target || target === file) return;
      const path = pathBack(target, file);
      if (!path) return;
      const root = context.cwd;
      const chain = [file, ...path].map((f) => relative(root, f)).join(' -> ');
      context.report({ node, messageId: 'cycle', data: { chain } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'no-import-cycle': noImportCycle } };
