import { writeFileSync } from 'node:fs';
import { SDK_BUNDLE_MODULE, bundleModuleText, compileSdk, typeCheckSdk } from '../src/bundle';

/** Type-checks the SDK and rewrites the committed bundle module. */
const errors = typeCheckSdk();
if (errors.length > 0) {
  process.stderr.write(`${errors.join('\n')}\n`);
  process.exit(1);
}
writeFileSync(SDK_BUNDLE_MODULE, bundleModuleText(compileSdk()));
process.stdout.write(`wrote ${SDK_BUNDLE_MODULE}\n`);
