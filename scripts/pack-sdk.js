#!/usr/bin/env node
// Builds the SDK packages of libs/sdk/* (ES modules + type declarations), packs each with
// `npm pack`, installs the tarballs into an empty project and imports every package from a plain
// Node ES module, as an integrator would. Prints one JSON summary on stdout; progress on stderr.
//
//   node scripts/pack-sdk.js [--out <dir>]     (default: a new temporary directory)
//
// Exit 0 when every package builds, packs, installs and imports; 1 otherwise.
'use strict';
const { execFileSync } = require('node:child_process');
const { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative, resolve } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');

/** Each package: its folder, its entry, the compiler settings of its runtime, and what an import must expose. */
const PACKAGES = [
  {
    dir: 'libs/sdk/browser',
    entries: ['src/svc.mts'],
    options: {
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.ES2020,
      lib: ['lib.es2020.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    },
    exports: [
      'open',
      'createSession',
      'configure',
      'isSvcEnvelope',
      'SvcError',
      'SvcDecisionElement',
      'DecisionHandle',
      'PROTOCOL_VERSION',
    ],
  },
  {
    dir: 'libs/sdk/webhooks',
    entries: ['src/index.ts'],
    options: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, lib: ['lib.es2022.d.ts'], types: ['node'] },
    exports: ['verifyWebhook', 'WebhookVerificationError', 'WEBHOOK_SIGNATURE_HEADER'],
  },
  {
    dir: 'libs/sdk/receipts-verify',
    entries: ['src/index.ts'],
    options: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, lib: ['lib.es2022.d.ts'], types: ['node'] },
    exports: ['verifyReceipt', 'ReceiptVerificationError', 'ISS_ROLES'],
  },
  {
    dir: 'libs/sdk/audit-verify',
    entries: ['src/index.ts'],
    options: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, lib: ['lib.es2022.d.ts'], types: ['node'] },
    // Compiled into the package (dependency-free, node:crypto only) rather than published apart.
    inline: { '@svc/merkle': 'libs/platform/merkle/src/index.ts' },
    exports: ['verifyInclusionProof', 'verifyConsistencyProof', 'AuditProofError'],
  },
];

const log = (message) => process.stderr.write(`${message}\n`);

/**
 * Node's ES module loader needs file extensions on relative specifiers (TypeScript sources omit
 * them), and an inlined workspace library is imported by its relative path in the package.
 */
function rewriteSpecifiers(folder, outDir, inline) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = join(folder, entry.name);
    if (entry.isDirectory()) {
      rewriteSpecifiers(file, outDir, inline);
      continue;
    }
    if (!/\.(js|d\.ts)$/.test(entry.name)) continue;
    let text = readFileSync(file, 'utf8');
    for (const [alias, target] of Object.entries(inline)) {
      const compiled = join(outDir, relative(join(ROOT, 'libs'), join(ROOT, target))).replace(/\.ts$/, '.js');
      const specifier = relative(folder, compiled).replace(/^(?!\.)/, './');
      text = text.split(`'${alias}'`).join(`'${specifier}'`);
    }
    text = text.replace(/(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]+?)\2/g, (whole, prefix, quote, specifier) =>
      /\.(m?js|json)$/.test(specifier) ? whole : `${prefix}${quote}${specifier}.js${quote}`,
    );
    writeFileSync(file, text);
  }
}

/** Compiles one package into <stageRoot>/<name>/ with its package.json and README; returns that folder. */
function build(pkg, stageRoot) {
  const source = join(ROOT, pkg.dir);
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  const stage = join(stageRoot, pkg.dir.split('/').pop());
  rmSync(stage, { recursive: true, force: true });
  const outDir = join(stage, 'dist');
  const program = ts.createProgram(
    pkg.entries.map((entry) => join(source, entry)),
    {
      ...pkg.options,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      declaration: true,
      removeComments: false,
      skipLibCheck: true,
      rootDir: pkg.inline ? join(ROOT, 'libs') : join(source, 'src'),
      outDir,
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      paths: Object.fromEntries(Object.entries(pkg.inline ?? {}).map(([alias, target]) => [alias, [join(ROOT, target)]])),
    },
  );
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) {
    throw new Error(
      `${manifest.name} does not compile:\n${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n')}`,
    );
  }
  rewriteSpecifiers(outDir, outDir, pkg.inline ?? {});
  copyFileSync(join(source, 'package.json'), join(stage, 'package.json'));
  copyFileSync(join(source, 'README.md'), join(stage, 'README.md'));
  return { stage, manifest };
}

/** A TypeScript consumer (NodeNext resolution, declarations checked) sees each package's types. */
function typeCheckConsumer(consumer) {
  const file = join(consumer, 'consumer.ts');
  writeFileSync(
    file,
    [
      "import { verifyWebhook, type VerifiedWebhook } from '@svc-sdk/webhooks';",
      "import { verifyReceipt, type VerifiedReceipt } from '@svc-sdk/receipts-verify';",
      "import { isSvcEnvelope, type SvcEnvelope } from '@svc-sdk/browser';",
      "import { verifyInclusionProof, type VerifiedInclusion, type InclusionProofResponse } from '@svc-sdk/audit-verify';",
      "export const webhook: (body: string) => VerifiedWebhook = (body) => verifyWebhook({ rawBody: body, headers: {}, secrets: ['whsec_x'] });",
      'export const receipt: (jws: string) => Promise<VerifiedReceipt> = (jws) => verifyReceipt(jws, { keys: { keys: [] } });',
      'export const envelope = (value: unknown): SvcEnvelope | undefined => (isSvcEnvelope(value) ? value : undefined);',
      "export const inclusion = (proof: InclusionProofResponse): VerifiedInclusion => verifyInclusionProof(proof, { verifierKey: 'k' });",
      '',
    ].join('\n'),
  );
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (errors.length > 0) throw new Error(`the packages' types do not check in a TypeScript consumer:\n${errors.join('\n')}`);
  log(`type-checked a TypeScript consumer of the ${PACKAGES.length} packages`);
}

function npm(args, cwd) {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

function main(argv) {
  const outFlag = argv.indexOf('--out');
  const out = outFlag >= 0 && argv[outFlag + 1] ? resolve(argv[outFlag + 1]) : mkdtempSync(join(tmpdir(), 'svc-sdk-pack-'));
  mkdirSync(out, { recursive: true });
  const packed = [];
  for (const pkg of PACKAGES) {
    const { stage, manifest } = build(pkg, join(out, 'stage'));
    const [info] = JSON.parse(npm(['pack', stage, '--pack-destination', out, '--json', '--silent'], ROOT));
    log(`packed ${manifest.name}@${manifest.version}: ${info.filename} (${info.files.length} files, ${info.size} B)`);
    packed.push({
      name: manifest.name,
      version: manifest.version,
      tarball: join(out, info.filename),
      files: info.files.map((f) => f.path).sort(),
      exports: pkg.exports,
    });
  }

  // An empty ES module project installs the tarballs (no registry needed: the packages have no dependencies).
  const consumer = join(out, 'consumer');
  rmSync(consumer, { recursive: true, force: true });
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  npm(['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--silent', ...packed.map((p) => p.tarball)], consumer);
  const checks = packed.map(
    (p) =>
      `{ const m = await import(${JSON.stringify(p.name)}); for (const name of ${JSON.stringify(p.exports)}) if (m[name] === undefined) throw new Error(${JSON.stringify(p.name)} + ' lacks ' + name); }`,
  );
  writeFileSync(join(consumer, 'smoke.mjs'), `${checks.join('\n')}\nconsole.log('imported ${packed.length} packages');\n`);
  // Plain Node, no DOM: the browser SDK must import on a server too.
  log(execFileSync(process.execPath, ['smoke.mjs'], { cwd: consumer, encoding: 'utf8' }).trim());
  typeCheckConsumer(consumer);
  process.stdout.write(`${JSON.stringify({ out, consumer, packages: packed.map(({ exports, ...rest }) => rest) }, null, 2)}\n`);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`pack-sdk: ${error instanceof Error ? error.message : String(error)}\n${error && error.stderr ? error.stderr : ''}`);
  process.exit(1);
}
