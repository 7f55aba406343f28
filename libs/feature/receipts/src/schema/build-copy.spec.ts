import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { RECEIPT_SCHEMA_FILE } from './published-schema';

/**
 * Spec, Versioning 6: the schema is served byte-verbatim. In a build, the file served is the copy
 * `tsc` writes beside the compiled code, and tsc re-prints JSON it copies. The committed file is
 * kept in exactly tsc's output form, so the copy is byte-identical; this test fails if it drifts.
 */
describe('published schema file survives the TypeScript build byte for byte', () => {
  it('tsc emits the committed bytes unchanged', () => {
    const options: ts.CompilerOptions = {
      resolveJsonModule: true,
      esModuleInterop: true,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      target: ts.ScriptTarget.ES2022,
      outDir: join(__dirname, '__probe_out__'),
      rootDir: __dirname,
      types: [],
    };
    const probe = join(__dirname, '__probe__.ts');
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    const source = "import schema from './svc-cr-2.13.schema.json';\nexport default schema;\n";
    host.readFile = (name) => (name === probe ? source : readFile(name));
    host.fileExists = (name) => name === probe || fileExists(name);
    host.getSourceFile = (name, language, onError) =>
      name === probe ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, onError);
    const written = new Map<string, string>();
    host.writeFile = (name, text) => written.set(name, text);
    ts.createProgram([probe], options, host).emit();
    const emitted = [...written.entries()].find(([name]) => name.endsWith('svc-cr-2.13.schema.json'))?.[1];
    expect(emitted).toBeDefined();
    expect(emitted).toBe(readFileSync(RECEIPT_SCHEMA_FILE, 'utf8'));
  });
});
