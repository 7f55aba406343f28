import { readFileSync } from 'node:fs';
import { SDK_BUNDLE_MODULE, bundleModuleText, compileSdk, typeCheckSdk } from './bundle';

describe('browser SDK bundle', () => {
  it('type-checks against the DOM with no error', () => {
    expect(typeCheckSdk()).toEqual([]);
  });

  it('matches the committed bundle served by decision-gateway (run `npx nx run sdk-browser:bundle` after editing svc.mts)', () => {
    expect(readFileSync(SDK_BUNDLE_MODULE, 'utf8')).toBe(bundleModuleText(compileSdk()));
  });

  it('is one small ES module exporting the public API and defining <svc-decision>', () => {
    const js = compileSdk();
    expect(js.length).toBeLessThan(16_000);
    expect(js).not.toMatch(/\brequire\(|^import /m);
    for (const name of ['open', 'createSession', 'configure', 'isSvcEnvelope', 'SvcError', 'SvcDecisionElement', 'DecisionHandle']) {
      expect(js).toMatch(new RegExp(`export (async )?(function|class|const) ${name}\\b`));
    }
    expect(js).toContain("customElements.define('svc-decision'");
  });
});
