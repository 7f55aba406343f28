// Jest's module runtime with V8's code cache. Every test file loads its modules into a fresh
// registry, so a worker compiles the same few thousand modules again for each file it runs. Here
// the first compilation of a module's source in a worker also produces V8's code cache, and later
// files hand it back to V8, which then skips most of the parsing. Any doubt (another source for
// the file, a cache V8 rejects, an error) compiles as Jest does.
'use strict';
const { compileFunction } = require('node:vm');
const Runtime = require('jest-runtime').default;

/** filename → the source compiled and the code cache V8 produced for it. */
const codeCache = new Map();

class CodeCachingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    // Jest 30 compiles CommonJS modules in its module executor; a Jest without one runs as it is.
    const executor = this.executor;
    if (typeof executor?.compile !== 'function') return;
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (scriptSource, filename) => {
      const vmContext = executor.environment.getVmContext();
      if (vmContext == null || executor.resolution.isCoreModule(filename)) return jestCompile(scriptSource, filename);
      const cached = codeCache.get(filename);
      const cachedData = cached !== undefined && cached.source === scriptSource ? cached.data : undefined;
      let compiled;
      try {
        compiled = compileFunction(scriptSource, executor.injectedModuleParameters, {
          filename,
          cachedData,
          produceCachedData: cachedData === undefined,
          importModuleDynamically: (specifier, _function, importAttributes, ...rest) =>
            executor.dynamicImport(specifier, filename, vmContext, importAttributes, rest[0]),
          parsingContext: vmContext,
        });
      } catch {
        return jestCompile(scriptSource, filename);
      }
      if (cachedData === undefined && compiled.cachedDataProduced)
        codeCache.set(filename, { source: scriptSource, data: compiled.cachedData });
      else if (compiled.cachedDataRejected) codeCache.delete(filename);
      return compiled;
    };
  }
}

module.exports = CodeCachingRuntime;
module.exports.default = CodeCachingRuntime;
