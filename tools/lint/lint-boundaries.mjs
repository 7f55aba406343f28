// Lints source texts given on stdin (JSON: [{ filePath, code }], paths relative to the repository)
// with the repository's ESLint configuration, its boundary and cycle rules only, as if each file
// existed at its path (ignore patterns off, so the committed fixtures under tools/lint/fixtures are
// linted); prints each file's messages as JSON. Used by the lint configuration's own tests.
import { createProjectGraphAsync } from '@nx/devkit';
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
process.chdir(root);
await createProjectGraphAsync({ exitOnError: true });
const eslint = new ESLint({
  cwd: root,
  ignore: false,
  // Type information is not needed by the boundary rule, and the fixture files exist nowhere.
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === '@nx/enforce-module-boundaries' || ruleId === 'local/no-import-cycle',
});
const inputs = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const { filePath, code } of inputs) {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  results.push({
    filePath,
    messages: (result?.messages ?? []).map((m) => ({ ruleId: m.ruleId, severity: m.severity, message: m.message })),
  });
}
process.stdout.write(JSON.stringify(results));
