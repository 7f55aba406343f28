#!/usr/bin/env node
// Runs a TypeScript entry point of this repository as compiled JavaScript, for the command-line
// tools (`npm run -s admin`, `svc-audit`, `svc-receipt`) whose start-up must stay well under a second.
//
// Each .ts module is compiled once by SWC (decorator metadata on, @svc/* aliases rewritten to
// relative paths) into node_modules/.cache/svc-compiled/, keyed by its path, size and mtime and by
// the toolchain (SWC version, aliases); later runs load the compiled file and never start the compiler. Modules keep their source path, so
// `__dirname` and relative requires mean what they mean in the source. `npm run build:cli`
// compiles the tools ahead of time; a fresh clone compiles on its first run instead. V8's code
// cache of the modules a process loads is kept there too, one file per entry point
// (scripts/v8-code-cache.js), so a later start of the same entry point parses less.
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join, resolve } = require('node:path');
const { installCodeCache } = require('./v8-code-cache');

const ROOT = join(__dirname, '..');
const CACHE_DIR = process.env.SVC_COMPILE_CACHE_DIR || join(ROOT, 'node_modules', '.cache', 'svc-compiled');
/** Bump when the compiler options below change: every cached module is then recompiled. */
const OPTIONS_VERSION = '1';

let toolchainFingerprint;
/** The options version, the path aliases (compiled into relative requires) and the SWC version. */
function toolchain() {
  if (toolchainFingerprint === undefined) {
    const aliases = readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8');
    const swcVersion = JSON.parse(readFileSync(require.resolve('@swc/core/package.json'), 'utf8')).version;
    toolchainFingerprint = `${OPTIONS_VERSION}\0${swcVersion}\0${aliases}`;
  }
  return toolchainFingerprint;
}

let compilerOptions;
function swcOptions(filename) {
  if (!compilerOptions) {
    const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')).compilerOptions;
    compilerOptions = {
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
        keepClassNames: true,
        baseUrl: ROOT,
        paths: base.paths,
      },
      module: { type: 'commonjs' },
      sourceMaps: false,
      swcrc: false,
    };
  }
  return { ...compilerOptions, filename };
}

function compiledSource(filename) {
  const stat = statSync(filename);
  const key = createHash('sha256').update(`${toolchain()}\0${filename}\0${stat.size}\0${stat.mtimeMs}`).digest('hex');
  const cached = join(CACHE_DIR, `${key}.js`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // Not compiled yet (or the source changed): compile and store, atomically for concurrent runs.
  }
  const { transformSync } = require('@swc/core');
  const { code } = transformSync(readFileSync(filename, 'utf8'), swcOptions(filename));
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } catch {
    // A read-only installation still runs, compiling each time.
  }
  return code;
}

Module._extensions['.ts'] = function loadCompiled(module, filename) {
  module._compile(compiledSource(filename), filename);
};

/** Compiles the modules an entry point loads without running it: `run-compiled --build <entry.ts>...`. */
function compileClosure(entries) {
  const seen = new Set();
  const pending = entries.map((entry) => resolve(entry));
  while (pending.length > 0) {
    const filename = pending.pop();
    if (seen.has(filename)) continue;
    seen.add(filename);
    const code = compiledSource(filename);
    for (const match of code.matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)) {
      try {
        const target = require.resolve(resolve(filename, '..', match[1]));
        if (target.endsWith('.ts')) pending.push(target);
      } catch {
        // A require guarded at run time (optional module): nothing to compile.
      }
    }
  }
  return seen.size;
}

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: run-compiled <file.ts> [args...] | run-compiled --build <file.ts>...\n');
  process.exit(2);
}
if (entry === '--build') {
  const count = compileClosure(args);
  process.stderr.write(`compiled ${count} modules into ${CACHE_DIR}\n`);
} else {
  // V8's code cache of every module the process loads, compiled ones and packages alike, one file
  // per entry point. Written once the entry point has loaded when a module had no cache, again ten
  // seconds on with what start-up compiled (then the process stops caching), or at an earlier exit.
  const codeCache = installCodeCache(join(CACHE_DIR, `v8-${process.version}-${process.arch}`), resolve(entry));
  process.on('exit', () => {
    codeCache.flush();
    if (process.env.SVC_CODE_CACHE_STATS) process.stderr.write(`code cache: ${JSON.stringify(codeCache.stats)}\n`);
  });
  require('reflect-metadata');
  process.argv = [process.argv[0], resolve(entry), ...args];
  require(resolve(entry));
  codeCache.flush();
  setTimeout(() => {
    codeCache.flush(true);
    codeCache.release();
  }, 10_000).unref();
}
