// V8's code cache for the CommonJS modules a process loads, kept on disk between processes (Node 20
// has no `module.enableCompileCache`), as scripts/jest-runtime.js keeps it in memory between the
// test files of a jest worker. The processes of one entry point share one cache file: every module
// they load, with the hash of the source it was made from. A process hands V8 the cache of each
// module whose source is unchanged, and V8 skips most of the parsing and compiling. A process that
// compiled a module without a cache writes the file again (`flush`), with what V8 holds by then:
// the functions that ran, not only the few it compiles up front. Any doubt (a source with a dynamic
// import(), a cache V8 rejects, a file that cannot be read or written, an error) compiles as Node
// does.
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

const hashOf = (content) => createHash('sha1').update(content).digest('base64');

/**
 * The cache file: a 4-byte length, a JSON header (`settled`, and per module filename its source
 * hash, offset and length in the data), then the data. Unreadable or malformed: an empty cache.
 */
function readCacheFile(file) {
  try {
    const bytes = readFileSync(file);
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8'));
    const data = bytes.subarray(4 + headerLength);
    const modules = new Map();
    for (const [filename, [hash, offset, length]] of Object.entries(header.modules)) {
      if (offset + length <= data.length) modules.set(filename, { hash, data: data.subarray(offset, offset + length) });
    }
    return { settled: header.settled === true, modules };
  } catch {
    return { settled: false, modules: new Map() };
  }
}

function writeCacheFile(file, settled, modules) {
  const header = { settled, modules: {} };
  const parts = [];
  let offset = 0;
  for (const [filename, { hash, data }] of modules) {
    header.modules[filename] = [hash, offset, data.length];
    parts.push(data);
    offset += data.length;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, Buffer.concat([length, json, ...parts]));
  renameSync(partial, file);
}

/**
 * Patches `Module.prototype._compile` so the modules loaded from now on use the code cache of
 * `entry` in `dir`. Returns `flush(settled)`, which writes the file when a module was compiled
 * without a usable cache, or when `settled` and the file was written before the process settled
 * (so the functions its start-up ran are in it too); and counters for diagnostics.
 */
function installCodeCache(dir, entry) {
  const stats = { hits: 0, misses: 0, rejected: 0, skipped: 0, written: 0 };
  const environment = [process.version, process.arch, process.versions.v8, ...process.execArgv, process.env.NODE_OPTIONS ?? ''];
  const file = join(
    dir,
    `${createHash('sha1')
      .update([entry, ...environment].join('\0'))
      .digest('hex')}.cache`,
  );
  const stored = readCacheFile(file);
  /** filename → the module function compiled for it, until Node's wrapper picks it up. */
  const pending = new Map();
  globalThis[COMPILED] = pending;
  /** filename → the script compiled in this process and the hash of its source. */
  const compiled = new Map();
  let dirty = false;
  let writable = true;
  const originalCompile = Module.prototype._compile;

  function compileWithCache(content, filename, format) {
    // A dynamic import() needs Node's own loader callback, which vm cannot set up the same way; an
    // ES module loaded through require is Node's to compile.
    const commonJs = format === undefined || format === 'commonjs';
    if (!commonJs || typeof content !== 'string' || typeof filename !== 'string' || content.includes('import(')) {
      stats.skipped += 1;
      return originalCompile.call(this, content, filename, format);
    }
    const hash = hashOf(content);
    const cached = stored.modules.get(filename);
    const cachedData = cached?.hash === hash ? cached.data : undefined;
    let script;
    let moduleFunction;
    try {
      script = new Script(Module.wrap(content), { filename, cachedData });
      moduleFunction = script.runInThisContext({ displayErrors: true });
    } catch {
      // A syntax error or anything unexpected: Node reports it as it would.
      stats.skipped += 1;
      return originalCompile.call(this, content, filename, format);
    }
    if (cachedData === undefined) {
      stats.misses += 1;
      dirty = true;
    } else if (script.cachedDataRejected) {
      stats.rejected += 1;
      dirty = true;
    } else stats.hits += 1;
    compiled.set(filename, { script, hash });
    pending.set(filename, moduleFunction);
    try {
      return originalCompile.call(this, TRAMPOLINE, filename, format);
    } finally {
      pending.delete(filename);
    }
  }
  Module.prototype._compile = compileWithCache;

  function flush(settled = false) {
    if (!writable || !(dirty || (settled && !stored.settled))) return;
    try {
      // The modules this process did not load keep their cache; the others get V8's current one.
      const modules = new Map(stored.modules);
      for (const [filename, { script, hash }] of compiled) modules.set(filename, { hash, data: script.createCachedData() });
      mkdirSync(dir, { recursive: true });
      writeCacheFile(file, settled || stored.settled, modules);
      stored.modules = modules;
      stored.settled = settled || stored.settled;
      dirty = false;
      stats.written += 1;
    } catch {
      // A read-only installation still runs, compiling each time.
      writable = false;
    }
  }

  /** Gives the memory back: modules loaded from now on compile as Node compiles them, without a cache. */
  function release() {
    if (Module.prototype._compile === compileWithCache) Module.prototype._compile = originalCompile;
    writable = false;
    compiled.clear();
    stored.modules = new Map();
  }

  return { flush, release, stats };
}

module.exports = { installCodeCache };
