// V8's code cache for the CommonJS modules a process loads, kept on disk between processes (Node 20
// has no `module.enableCompileCache`). The first process to compile a module's source also asks V8
// for its code cache and stores it; later processes hand it back, and V8 skips most of the parsing.
// The cache file is keyed by the module's path and source and by the Node version, architecture and
// flags. Any doubt (a source with a dynamic import(), a cache V8 rejects, a cache that cannot be
// read or written, an error) compiles as Node does. scripts/jest-runtime.js does the same inside a
// jest worker, in memory.
'use strict';
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { Script } = require('node:vm');

/** Where a module's compiled function waits for the wrapper Node compiles around the call. */
const COMPILED = Symbol.for('svc.v8-code-cache.compiled');
/**
 * What Node compiles instead of the module: a one-line wrapper body that runs the module function
 * compiled here with the wrapper's own arguments (exports, require, module, __filename, __dirname).
 * Node's own `_compile` thus still makes `require` and runs the module as it would.
 */
const TRAMPOLINE = `return globalThis[Symbol.for('svc.v8-code-cache.compiled')].get(__filename).apply(this, arguments);`;

/**
 * Patches `Module.prototype._compile` so the modules loaded from now on use the code cache in `dir`
 * (created on first use). A module without a cache is compiled as it is and its cache written by
 * `flush`: V8's cache then also holds the functions that ran by that time (a cache produced at
 * compile time holds only the few V8 compiles eagerly). Returns `flush` and counters for
 * diagnostics (hits, written, rejected, skipped).
 */
function installCodeCache(dir) {
  const stats = { hits: 0, written: 0, rejected: 0, skipped: 0 };
  const environment = [process.version, process.arch, process.versions.v8, ...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\0');
  /** filename → the module function compiled for it, until Node's wrapper picks it up. */
  const pending = new Map();
  globalThis[COMPILED] = pending;
  /** Modules compiled without a cache, whose cache `flush` writes. */
  let uncached = [];
  let writable = true;
  const originalCompile = Module.prototype._compile;

  Module.prototype._compile = function compileWithCache(content, filename, format) {
    // A dynamic import() needs Node's own loader callback, which vm cannot set up the same way; an
    // ES module loaded through require is Node's to compile.
    const commonJs = format === undefined || format === 'commonjs';
    if (!commonJs || typeof content !== 'string' || typeof filename !== 'string' || content.includes('import(')) {
      stats.skipped += 1;
      return originalCompile.call(this, content, filename, format);
    }
    const key = createHash('sha1').update(environment).update('\0').update(filename).update('\0').update(content).digest('hex');
    const file = join(dir, `${key}.bin`);
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      // Not cached yet.
    }
    let script;
    let compiled;
    try {
      script = new Script(Module.wrap(content), { filename, cachedData });
      compiled = script.runInThisContext({ displayErrors: true });
    } catch {
      // A syntax error or anything unexpected: Node reports it as it would.
      stats.skipped += 1;
      return originalCompile.call(this, content, filename, format);
    }
    if (cachedData === undefined) uncached.push({ script, file });
    else if (script.cachedDataRejected) {
      stats.rejected += 1;
      uncached.push({ script, file });
    } else stats.hits += 1;
    pending.set(filename, compiled);
    try {
      return originalCompile.call(this, TRAMPOLINE, filename, format);
    } finally {
      pending.delete(filename);
    }
  };

  /** Writes the cache of every module compiled without one since the last flush. */
  function flush() {
    const scripts = uncached;
    uncached = [];
    if (!writable || scripts.length === 0) return;
    try {
      mkdirSync(dir, { recursive: true });
      for (const { script, file } of scripts) {
        const partial = `${file}.${process.pid}.tmp`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, file);
        stats.written += 1;
      }
    } catch {
      // A read-only installation still runs, compiling each time.
      writable = false;
    }
  }

  return { flush, stats };
}

module.exports = { installCodeCache };
